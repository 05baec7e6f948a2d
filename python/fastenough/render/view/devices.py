"""Device time and why the device was idle, per device (or, for many ranks,
their distribution), how busy the device was for the key figures, and the
line that says why the device tables are missing."""

from __future__ import annotations

from collections.abc import Callable

from fastenough.render.ranks import WORST_NAMED, idle_share, many_ranks, median
from fastenough.render.table import Table
from fastenough.render.units import fmt_ns, fmt_num, fmt_share, share
from fastenough.report.model import Device, Report

# A column of a per-device table: its value (a number or None) and its text.
Column = tuple[Callable[[Device], float | None], Callable[[float | None], str]]


def no_device_line(report: Report) -> str | None:
    """Say why the device tables are missing rather than leaving a silent gap."""
    if report.devices or not report.inputs:
        return None
    return ("no device activity in the trace (a CPU program, or a trace recorded without "
            "device activities): device time and idle tables are omitted")


def device_busy(report: Report) -> tuple[float | None, str]:
    """Busy share of the device and where it comes from: the profiled window's
    trace (median over devices) when there is one, else the steady phase's samples."""
    devices = report.devices
    shares = [share(d.busy_ns, d.span_ns) for d in devices]
    value = median(shares)
    if value is not None:
        where = "profiled window" if report.run is not None else "trace"
        if len(devices) > 1:
            where += f", median of {len(devices)} devices"
        return value, where
    steady = [p.device_busy_share for p in report.phases if p.name == "steady"]
    value = median(steady)
    return value, "steady phase, sampled utilisation"


def _spread_rows(devices: tuple[Device, ...], columns: list[Column]) -> list[list[str]]:
    """min / median / max of each column over the devices (each column apart), then
    the WORST_NAMED devices with the most idle time, by rank."""
    rows = []
    for label, pick in (("min", min), ("median", median), ("max", max)):
        row = [label, f"{len(devices)} devices"]
        for value_of, text in columns:
            values = [v for v in (value_of(d) for d in devices) if v is not None]
            row.append(text(_as_counted(pick(values), values)) if values else "-")
        rows.append(row)
    for d in sorted(devices, key=idle_share, reverse=True)[:WORST_NAMED]:
        rows.append([str(d.rank), _device_label(d)]
                    + [text(value_of(d)) for value_of, text in columns])
    return rows


def _as_counted(value, values: list):
    """A median of counts that is a whole number prints as one (81, not 81.0)."""
    if isinstance(value, float) and value.is_integer() and all(isinstance(v, int) for v in values):
        return int(value)
    return value


def _spread_note(devices: tuple[Device, ...]) -> str:
    ranks = len({d.rank for d in devices})
    return (f" {len(devices)} devices on {ranks} ranks: the min, median and max of each column "
            f"over them (each column on its own), then the {WORST_NAMED} devices with the most "
            "idle time; every device in --json.")


def _share_of_span(key: str) -> Column:
    return (lambda d: share(getattr(d, key), d.span_ns), fmt_share)


def _table_rows(devices: tuple[Device, ...], columns: list[Column]) -> list[list[str]]:
    if many_ranks(devices):
        return _spread_rows(devices, columns)
    return [[str(d.rank), _device_label(d)]
            + [text(value_of(d)) for value_of, text in columns] for d in devices]


def _device_label(d: Device) -> str:
    label = str(d.device)
    if d.name:
        label += f" {d.name}"
    return label


DEVICE_COLUMNS: list[Column] = [
    (lambda d: d.span_ns, fmt_ns),
    _share_of_span("busy_ns"),
    _share_of_span("compute_ns"),
    _share_of_span("comm_ns"),
    _share_of_span("memcpy_ns"),
    _share_of_span("memset_ns"),
    (lambda d: d.kernel_count, fmt_num),
]


def devices_table(report: Report) -> Table | None:
    devices = report.devices
    if not devices:
        return None
    return Table(
        "Device time (share of the span from first to last device activity)",
        ["rank", "device", "span", "busy", "compute", "comm", "memcpy", "memset", "kernels"],
        _table_rows(devices, DEVICE_COLUMNS),
        note="busy = compute + comm + memcpy + memset; communication overlapped with "
        "compute counts as compute." + (_spread_note(devices) if many_ranks(devices) else ""),
        right=set(range(2, 9)),
    )


IDLE_COLUMNS: list[Column] = [
    _share_of_span("idle_ns"),
    (lambda d: share(d.device_idle.host_wait_ns, d.span_ns), fmt_share),
    (lambda d: share(d.device_idle.kernel_wait_ns, d.span_ns), fmt_share),
    (lambda d: share(d.device_idle.other_ns, d.span_ns), fmt_share),
    (lambda d: d.short_kernel_count, fmt_num),
]


def idle_table(report: Report) -> Table | None:
    devices = report.devices
    if not devices:
        return None
    return Table(
        "Why the device was idle (share of span)",
        ["rank", "device", "idle", "host wait", "kernel wait", "other", "short kernels"],
        _table_rows(devices, IDLE_COLUMNS),
        note="host wait: the device had finished and the host had not yet launched the next "
        "op; kernel wait: gaps under 30 µs between ops already queued; short kernels: kernels "
        "that ran shorter than the call that launched them. Per-stream gaps as HTA counts "
        "them: --json, devices[].streams."
        + (_spread_note(devices) if many_ranks(devices) else ""),
        right=set(range(2, 7)),
    )
