"""How close the hot ops ran to the device's roofs (the report's
roofline.per_rank[], docs/roofline.md): one row per (op, shapes), heaviest
device time first, over every rank; no table when no rank has rows."""

from __future__ import annotations

from fastenough.render.table import Table
from fastenough.render.units import fmt_ns, fmt_num, fmt_share, shorten
from fastenough.report.model import Report

TOP_N = 10
TITLE = "How close to the roof"


def _of_roof(op) -> str:
    """The percentage of the roof it sits under (the bound side)."""
    pct = op.pct_of_compute_peak if op.bound == "compute" else op.pct_of_memory_peak
    if op.bound is None or pct is None:
        return "-"
    return fmt_share(pct / 100)


def _roof(op) -> str:
    """The roof it sits under: "memory", or "compute" with the peak's column."""
    if op.bound == "compute" and op.peak.dtype:
        return f"compute ({op.peak.dtype})"
    return op.bound or "-"


def roofline_table(report: Report) -> Table | None:
    per_rank = report.roofline.per_rank if report.roofline else ()
    rows = [(r.rank, op) for r in per_rank for op in r.ops]
    if not rows:
        return None
    many = len(per_rank) > 1
    rows.sort(key=lambda ro: -ro[1].device_ns)  # stable: rank order, then each rank's order
    body = []
    for rank, op in rows[:TOP_N]:
        row = [str(rank)] if many else []
        row += [
            shorten(op.op, 28),
            shorten(op.input_dims.replace(" ", ""), 28),
            fmt_num(op.calls),
            fmt_ns(op.device_ns),
            fmt_ns(op.time_at_roof_ns),
            _of_roof(op),
            _roof(op),
        ]
        body.append(row)
    header = (["rank"] if many else []) + [
        "op", "shapes", "calls", "device", "at the roof", "of roof", "roof"]
    first = 1 if many else 0
    notes = []
    devices = sorted({op.peak.device for _, op in rows[:TOP_N] if op.peak.device})
    if devices:
        notes.append("peaks of " + ", ".join(devices) + " (docs/roofline.md)")
    unmodelled = [r.unmodelled for r in per_rank if r.unmodelled.count]
    if unmodelled:
        names = sorted({n for u in unmodelled for n in u.ops})
        notes.append(f"{sum(u.count for u in unmodelled)} hot op shapes without a model "
                     f"({fmt_ns(sum(u.device_ns for u in unmodelled))} of device time, "
                     f"not counted): {', '.join(shorten(n, 40) for n in names[:6])}"
                     + (", ..." if len(names) > 6 else ""))
    if any(op.bound is None for _, op in rows[:TOP_N]):
        notes.append("'-': no peaks for the device (the trace has no deviceProperties, or "
                     "the device is not in the table: docs/roofline.md)")
    return Table(TITLE, header, body, note="; ".join(notes),
                 right={first + 2, first + 3, first + 4, first + 5})
