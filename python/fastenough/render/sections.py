"""The report's sections as plain rows (title, header, rows), so that every
renderer (terminal, Markdown, HTML) shows the same content from one definition.

Jobs with many ranks are summarised rather than listed: above
RANK_DISTRIBUTION_OVER ranks the per-rank tables (phases, device time, idle)
show the distribution over ranks, min / median / max, and name the WORST_NAMED
worst ranks; the inputs are folded above RANK_DETAIL_MAX, and the HTML charts
show the worst ranks, the median and the best (device_rows)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from fastenough.render.units import (
    fmt_bytes,
    fmt_evidence_value,
    fmt_ns,
    fmt_num,
    fmt_saving,
    fmt_share,
    fmt_where,
    share,
    shorten,
)

TOP_N = 10
RANK_DETAIL_MAX = 8  # more ranks than this: inputs folded, charts show the worst
WORST_RANKS = 5
RANK_DISTRIBUTION_OVER = 4  # more ranks than this: tables show min / median / max
WORST_NAMED = 3  # ... and name this many worst ranks


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    right: set[int] = field(default_factory=set)  # right-aligned (numeric) columns


def inputs_table(report: dict) -> Table | None:
    inputs = report.get("inputs") or []
    if not inputs:
        return None
    base = (report.get("meta") or {}).get("cwd")
    rows = [
        [
            _display_path(i.get("path", "-"), base),
            i.get("format", "-"),
            fmt_bytes(i.get("bytes")),
            fmt_num(i.get("events")),
            ", ".join(str(r) for r in (i.get("ranks") or [])) or "-",
        ]
        for i in inputs
    ]
    note = ""
    if len(inputs) > RANK_DETAIL_MAX:
        # One file per rank: the first few, then the rest in one row.
        rest = inputs[WORST_RANKS:]
        ranks = sorted(r for i in rest for r in (i.get("ranks") or []))
        rows = rows[:WORST_RANKS] + [[
            f"… {len(rest)} more files", ", ".join(sorted({i.get("format", "-") for i in rest})),
            fmt_bytes(sum(i.get("bytes") or 0 for i in rest)),
            fmt_num(sum(i.get("events") or 0 for i in rest)),
            f"{ranks[0]}–{ranks[-1]}" if ranks else "-"]]
        note = f"{len(inputs)} files in all; every one in --json (inputs)."
    return Table("Inputs", ["file", "format", "size", "events", "rank"], rows, note=note,
                 right={2, 3})


def _display_path(path: str, base: str | None = None) -> str:
    """Relative to the run's working directory (else the current one) when that is
    shorter and stays inside it: a run's report reads the same wherever it is rendered."""
    try:
        rel = os.path.relpath(path, base or os.getcwd())
    except ValueError:
        return path
    return rel if len(rel) < len(path) and not rel.startswith("..") else path


def counters_table(report: dict) -> Table | None:
    """Counters that lost data or signal errors; tolerated quirks go to counters_line."""
    counters = [
        c for c in report.get("counters") or [] if c.get("count") and c.get("severity") != "info"
    ]
    if not counters:
        return None
    rows = [
        [c["name"], c.get("severity", "-"), fmt_num(c["count"]), c.get("description", "")]
        for c in counters
    ]
    return Table("Trace problems (counted; parsing went on)",
                 ["counter", "severity", "count", "meaning"], rows, right={2})


def batch_sweep_line(report: dict) -> str | None:
    """The knee the workload measured with fastenough.sweep_batch (meta.batch_sweep)."""
    sweep = (report.get("meta") or {}).get("batch_sweep")
    if not isinstance(sweep, dict):
        return None
    ok = [p for p in sweep.get("points") or [] if p.get("status") == "ok"]
    knee = next((p for p in ok if p.get("size") == sweep.get("knee")), None)
    if knee is None:
        return "fastenough.sweep_batch: no batch size ran"
    within = sweep.get("within") or 0
    text = (f"knee at batch {knee['size']} ({fmt_num(knee.get('items_per_s'))} items/s, "
            f"within {within:.0%} of the best, batch {sweep.get('best')}); sizes tried: "
            + ", ".join(str(p.get("size")) for p in sweep.get("points") or []))
    if sweep.get("out_of_memory_at") is not None:
        text += f"; out of memory at {sweep['out_of_memory_at']}"
    if sweep.get("protocol_change"):
        text += ("; a protocol change (" + ", ".join(sweep.get("semantics") or []) + ")")
    return text


def no_device_line(report: dict) -> str | None:
    """Say why the device tables are missing rather than leaving a silent gap."""
    if report.get("devices") or not report.get("inputs"):
        return None
    return ("no device activity in the trace (a CPU program, or a trace recorded without "
            "device activities): device time and idle tables are omitted")


def counters_line(report: dict) -> str | None:
    infos = [c for c in report.get("counters") or [] if c.get("count")
             and c.get("severity") == "info"]
    if not infos:
        return None
    names = ", ".join(f"{c['name']} ({fmt_num(c['count'])})" for c in infos)
    return f"tolerated trace quirks, nothing lost: {names} (details in --json)"


def run_parts(report: dict) -> tuple[str, str] | None:
    """('python eval.py', 'exited 0 after 15.9 s') for reports of `fastenough run`:
    the command apart, so that each renderer quotes it in its own way."""
    run = report.get("run")
    if not run:
        return None
    command = run.get("command") or ""
    if isinstance(command, list):
        command = shlex.join(command)
    if run.get("signal"):
        ending = f"was stopped by signal {run['signal']}"
    else:
        ending = f"exited {run.get('exit_status')}"
    if run.get("wall_ns"):
        ending += f" after {fmt_ns(run['wall_ns'])}"
    return command, ending


def run_line(report: dict) -> str | None:
    """'`python eval.py` exited 0 after 15.9 s' for reports of `fastenough run`."""
    parts = run_parts(report)
    return f"`{parts[0]}` {parts[1]}" if parts else None


def phases_table(report: dict) -> Table | None:
    phases = report.get("phases") or []
    if not phases:
        return None
    details = (report.get("run_details") or {}).get("phases") or []
    if len(details) != len(phases):
        details = [{} for _ in phases]
    ranks = {p.get("rank") for p in phases}
    if len(ranks) > RANK_DISTRIBUTION_OVER:
        return _phases_summary_table(phases, details)
    multi_rank = len(ranks) > 1
    # The sampler sees the process tree: with several ranks its RSS is the job's.
    header = (["rank"] if multi_rank else []) + [
        "phase", "host time", "device busy", "util", "power", "mem used", "alloc peak",
        "reserved peak", "host CPU", "RSS max (all ranks)" if multi_rank else "RSS max",
    ]
    modes = {d.get("mode") for d in details if d.get("mode")}
    if len(phases) > PHASE_ROWS_MAX:
        # A loop that alternates training and evaluation enters a phase every
        # step: one row per phase and mode, its instances summed, so that the
        # table never grows with the number of steps.
        phases, details = _phases_by_kind(phases, details)
    rows = []
    for p, d in zip(phases, details, strict=True):
        power = p.get("power_mean_w")
        util = p.get("util_mean")
        busy = fmt_share(p.get("device_busy_share"))
        if busy != "-" and d.get("busy_source") == "util":
            busy += " (util)"
        cpu = d.get("cpu_mean_pct")
        name = p.get("name", "-")
        if len(modes) > 1 and d.get("mode") and name in ("warmup", "steady", "profile"):
            name += f" ({d['mode']})"
        name += "" if d.get("complete", True) else " (cut)"
        if d.get("instances", 1) > 1:
            name += f" ×{d['instances']}"
        row = [
            name,
            fmt_ns(p.get("host_ns")),
            busy,
            "-" if util is None else f"{util:.0f}%",
            "-" if power is None else f"{power:.0f} W",
            fmt_bytes(p.get("mem_used_max")),
            fmt_bytes(p.get("alloc_peak")),
            fmt_bytes(p.get("reserved_peak")),
            "-" if cpu is None else f"{cpu:.0f}%",
            fmt_bytes(d.get("rss_max")),
        ]
        rows.append(([str(p.get("rank"))] if multi_rank else []) + row)
    off = 1 if multi_rank else 0
    return _drop_empty_columns(Table(
        "Phases", header, rows, right={i + off for i in range(1, 10)},
        note="device busy comes from the profiler trace for the profile phase and from sampled "
        "utilisation, marked (util), otherwise; host CPU is the process tree's mean CPU use "
        "(100% = one core).",
    ))


PHASE_ROWS_MAX = 16


def _phases_by_kind(phases: list[dict], details: list[dict]) -> tuple[list[dict], list[dict]]:
    """Phase instances merged per (rank, name, mode), in order of first
    appearance: host times summed, peaks the maximum, the rest the median."""
    order: dict[tuple, list[tuple[dict, dict]]] = {}
    for p, d in zip(phases, details, strict=True):
        order.setdefault((p.get("rank"), p.get("name"), d.get("mode")), []).append((p, d))
    out_p, out_d = [], []
    for members in order.values():
        ps = [m[0] for m in members]
        ds = [m[1] for m in members]
        host = [p.get("host_ns") for p in ps if p.get("host_ns") is not None]
        merged = dict(ps[0], host_ns=sum(host) if host else None,
                      device_busy_share=median([p.get("device_busy_share") for p in ps]),
                      util_mean=median([p.get("util_mean") for p in ps]),
                      power_mean_w=median([p.get("power_mean_w") for p in ps]))
        for key in ("mem_used_max", "alloc_peak", "reserved_peak"):
            merged[key] = _max([p.get(key) for p in ps])
        out_p.append(merged)
        out_d.append(dict(ds[0], instances=len(members),
                          complete=all(d.get("complete", True) for d in ds),
                          cpu_mean_pct=median([d.get("cpu_mean_pct") for d in ds]),
                          rss_max=_max([d.get("rss_max") for d in ds])))
    return out_p, out_d


def median(values: list) -> float | None:
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _max(values: list):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def phase_groups(phases: list[dict], details: list[dict]) -> list[tuple[str, list]]:
    """Phases of all ranks grouped by (name, occurrence within the rank), in the
    order of the first rank: the n-th `steady` of every rank is one group."""
    seen: dict[tuple, int] = {}
    groups: dict[tuple[str, int], list[tuple[dict, dict]]] = {}
    for p, d in zip(phases, details, strict=True):
        k = (p.get("rank"), p.get("name"))
        n = seen.get(k, 0)
        seen[k] = n + 1
        groups.setdefault((p.get("name", "-"), n), []).append((p, d))
    return [(name, members) for (name, _), members in groups.items()]


def _phases_summary_table(phases: list[dict], details: list[dict]) -> Table:
    rows = []
    ranks = len({p.get("rank") for p in phases})
    for name, members in phase_groups(phases, details):
        slowest = sorted(members, key=lambda m: m[0].get("host_ns") or 0, reverse=True)
        host = [m[0].get("host_ns") for m in members if m[0].get("host_ns") is not None]
        busy = [m[0].get("device_busy_share") for m in members]
        util = median([m[0].get("util_mean") for m in members])
        power = median([m[0].get("power_mean_w") for m in members])
        cpu = median([m[1].get("cpu_mean_pct") for m in members])
        rows.append([
            name,
            str(len(members)),
            fmt_ns(min(host)) if host else "-",
            fmt_ns(median(host)),
            fmt_ns(max(host)) if host else "-",
            ", ".join(f"{m[0].get('rank')} ({fmt_ns(m[0].get('host_ns'))})"
                      for m in slowest[:WORST_NAMED]),
            fmt_share(median(busy)),
            "-" if util is None else f"{util:.0f}%",
            "-" if power is None else f"{power:.0f} W",
            fmt_bytes(_max([m[0].get("mem_used_max") for m in members])),
            fmt_bytes(_max([m[0].get("alloc_peak") for m in members])),
            fmt_bytes(_max([m[0].get("reserved_peak") for m in members])),
            "-" if cpu is None else f"{cpu:.0f}%",
            fmt_bytes(_max([m[1].get("rss_max") for m in members])),
        ])
    header = ["phase", "ranks", "host time min", "median", "max",
              f"slowest {WORST_NAMED} ranks", "device busy (median)", "util", "power",
              "mem used (max)", "alloc peak (max)", "reserved peak (max)", "host CPU",
              "RSS max (all ranks)"]
    t = _drop_empty_columns(Table(
        f"Phases ({ranks} ranks: host time over ranks, the slowest named; medians; peaks "
        "the maximum)",
        header, rows, right=set(range(1, 14)) - {5},
        note="device busy comes from the profiler trace for the profile phase and from "
        "sampled utilisation otherwise; every rank's row is in --json.",
    ))
    return t
def _drop_empty_columns(t: Table) -> Table:
    """Columns absent for every row (no GPU: no util, power, ...) only add noise."""
    keep = [i for i in range(len(t.header)) if i == 0 or any(r[i] != "-" for r in t.rows)]
    header = [t.header[i] for i in keep]
    return Table(
        t.title,
        header,
        [[r[i] for i in keep] for r in t.rows],
        note=t.note if any(h.startswith("device busy") for h in header) else "",
        right={new for new, old in enumerate(keep) if old in t.right},
    )


def steps_lines(report: dict) -> list[str]:
    steps = report.get("steps") or {}
    if not steps or not steps.get("count"):
        return []
    out = [
        f"{steps['count']} steps: median {fmt_ns(steps.get('median_ns'))}, "
        f"p10 {fmt_ns(steps.get('p10_ns'))}, p90 {fmt_ns(steps.get('p90_ns'))}"
    ]
    by_mode = (report.get("run_details") or {}).get("steps_by_mode") or []
    if not by_mode and steps.get("steady_count"):
        by_mode = [{"mode": None, "steady_count": steps["steady_count"],
                    "median_ns": steps.get("steady_median_ns"),
                    "p10_ns": steps.get("steady_p10_ns"), "p90_ns": steps.get("steady_p90_ns"),
                    "steps_per_s": steps.get("steady_steps_per_s"),
                    "items_per_s": steps.get("items_per_s"),
                    "tokens_per_s": steps.get("tokens_per_s")}]
    for m in by_mode:
        label = f"{m['mode']}: " if m.get("mode") and len(by_mode) > 1 else ""
        out.append(
            f"{label}{m['steady_count']} steady steps: median {fmt_ns(m.get('median_ns'))}, "
            f"p10 {fmt_ns(m.get('p10_ns'))}, p90 {fmt_ns(m.get('p90_ns'))}")
        texts = rates(m)
        if texts:
            out.append(f"{label}steady throughput: " + ", ".join(texts))
    notes = _steps_notes(report, by_mode)
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    return out


def rates(m: dict) -> list[str]:
    """'10.03 steps/s', '10.0 items/s', '642 tokens/s (374 without padding)'."""
    out = []
    if m.get("steps_per_s"):
        out.append(f"{m['steps_per_s']:.2f} steps/s")
    if m.get("items_per_s"):
        out.append(f"{m['items_per_s']:.1f} items/s")
    if m.get("tokens_per_s"):
        tokens = f"{m['tokens_per_s']:.0f} tokens/s"
        if m.get("real_tokens_per_s"):
            tokens += f" ({m['real_tokens_per_s']:.0f} without padding)"
        out.append(tokens)
    return out


def _steps_notes(report: dict, by_mode: list[dict]) -> list[str]:
    """How the figures were made, where a reader could take them for something else."""
    notes = []
    ranks = max((m.get("ranks") or 1 for m in by_mode), default=1)
    if ranks > 1:
        notes.append(f"steps/s of rank 0, items and tokens summed over {ranks} ranks")
    agents = _meta_agents(report)
    if any(a.get("batch_dim") == 1 for a in agents if a.get("role") in ("main", "rank")):
        notes.append("items from dimension 1 of the input: the model's recurrent/attention "
                     "layers are sequence-first")
    if any(m.get("real_tokens_per_s") for m in by_mode):
        notes.append("tokens without padding from the attention masks of the examined forwards")
    return notes


def _meta_agents(report: dict) -> list[dict]:
    agents = (report.get("meta") or {}).get("agents")
    return agents if isinstance(agents, list) else []


def idle_share(d: dict) -> float:
    return share(d.get("idle_ns"), d.get("span_ns")) or 0.0


def device_rows(report: dict) -> list[tuple[str, dict]]:
    """(rank label, device) to show: every device of a small job; for more than
    RANK_DETAIL_MAX ranks the WORST_RANKS most idle, then the median and the least idle."""
    devices = report.get("devices") or []
    if len({d.get("rank") for d in devices}) <= RANK_DETAIL_MAX:
        return [(str(d.get("rank", "-")), d) for d in devices]
    ordered = sorted(devices, key=idle_share, reverse=True)
    rows = [(str(d.get("rank", "-")), d) for d in ordered[:WORST_RANKS]]
    rows.append((f"median: {ordered[len(ordered) // 2].get('rank', '-')}",
                 ordered[len(ordered) // 2]))
    rows.append((f"least idle: {ordered[-1].get('rank', '-')}", ordered[-1]))
    return rows


def many_ranks(report: dict) -> bool:
    """More ranks than RANK_DISTRIBUTION_OVER: the device tables show their distribution."""
    return len({d.get("rank") for d in report.get("devices") or []}) > RANK_DISTRIBUTION_OVER


# A column of a per-device table: its value (a number or None) and its text.
Column = tuple[Callable[[dict], float | None], Callable[[float | None], str]]


def _spread_rows(devices: list[dict], columns: list[Column]) -> list[list[str]]:
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
        rows.append([str(d.get("rank", "-")), _device_label(d)]
                    + [text(value_of(d)) for value_of, text in columns])
    return rows


def _as_counted(value, values: list):
    """A median of counts that is a whole number prints as one (81, not 81.0)."""
    if isinstance(value, float) and value.is_integer() and all(isinstance(v, int) for v in values):
        return int(value)
    return value


def _spread_note(report: dict) -> str:
    devices = report.get("devices") or []
    ranks = len({d.get("rank") for d in devices})
    return (f" {len(devices)} devices on {ranks} ranks: the min, median and max of each column "
            f"over them (each column on its own), then the {WORST_NAMED} devices with the most "
            "idle time; every device in --json.")


def _share_of_span(key: str) -> Column:
    return (lambda d: share(d.get(key), d.get("span_ns")), fmt_share)


def _table_rows(report: dict, columns: list[Column]) -> list[list[str]]:
    devices = report.get("devices") or []
    if many_ranks(report):
        return _spread_rows(devices, columns)
    return [[str(d.get("rank", "-")), _device_label(d)]
            + [text(value_of(d)) for value_of, text in columns] for d in devices]


DEVICE_COLUMNS: list[Column] = [
    (lambda d: d.get("span_ns"), fmt_ns),
    _share_of_span("busy_ns"),
    _share_of_span("compute_ns"),
    _share_of_span("comm_ns"),
    _share_of_span("memcpy_ns"),
    _share_of_span("memset_ns"),
    (lambda d: d.get("kernel_count"), fmt_num),
]


def devices_table(report: dict) -> Table | None:
    if not report.get("devices"):
        return None
    return Table(
        "Device time (share of the span from first to last device activity)",
        ["rank", "device", "span", "busy", "compute", "comm", "memcpy", "memset", "kernels"],
        _table_rows(report, DEVICE_COLUMNS),
        note="busy = compute + comm + memcpy + memset; communication overlapped with "
        "compute counts as compute." + (_spread_note(report) if many_ranks(report) else ""),
        right=set(range(2, 9)),
    )


IDLE_COLUMNS: list[Column] = [
    _share_of_span("idle_ns"),
    (lambda d: share((d.get("device_idle") or {}).get("host_wait_ns"), d.get("span_ns")),
     fmt_share),
    (lambda d: share((d.get("device_idle") or {}).get("kernel_wait_ns"), d.get("span_ns")),
     fmt_share),
    (lambda d: share((d.get("device_idle") or {}).get("other_ns"), d.get("span_ns")), fmt_share),
    (lambda d: d.get("short_kernel_count"), fmt_num),
]


def idle_table(report: dict) -> Table | None:
    if not report.get("devices"):
        return None
    return Table(
        "Why the device was idle (share of span)",
        ["rank", "device", "idle", "host wait", "kernel wait", "other", "short kernels"],
        _table_rows(report, IDLE_COLUMNS),
        note="host wait: the device had finished and the host had not yet launched the next "
        "op; kernel wait: gaps under 30 µs between ops already queued; short kernels: kernels "
        "that ran shorter than the call that launched them. Per-stream gaps as HTA counts "
        "them: --json, devices[].streams."
        + (_spread_note(report) if many_ranks(report) else ""),
        right=set(range(2, 7)),
    )


def _device_label(d: dict) -> str:
    label = str(d.get("device", "-"))
    if d.get("name"):
        label += f" {d['name']}"
    return label


def top_kernels_table(report: dict) -> Table | None:
    kernels = (report.get("top_kernels") or [])[:TOP_N]
    if not kernels:
        return None
    rows = [
        [
            shorten(k.get("name", "?"), 70),
            fmt_num(k.get("count")),
            fmt_ns(k.get("total_ns")),
            fmt_ns(k.get("mean_ns")),
            fmt_share(k.get("share_of_busy")),
        ]
        for k in kernels
    ]
    return Table("Top kernels", ["kernel", "calls", "total", "mean", "of busy"], rows,
                 right={1, 2, 3, 4})


def top_ops_table(report: dict) -> Table | None:
    ops = (report.get("top_ops") or [])[:TOP_N]
    if not ops:
        return None
    rows = [
        [
            shorten(o.get("name", "?"), 60),
            fmt_num(o.get("count")),
            fmt_ns(o.get("total_ns")),
            fmt_ns(o.get("self_ns")),
        ]
        for o in ops
    ]
    return Table("Top CPU ops", ["op", "calls", "total", "self"], rows, right={1, 2, 3})


@dataclass
class FindingView:
    rank: int
    code: str
    verdict: str
    title: str
    saving: str
    where: list[str]
    action: str
    evidence: list[str]
    evidence_pairs: list[tuple[str, str]] = field(default_factory=list)
    saving_share: float | None = None  # of a step, for a bar; None when unknown


def _relative_where(where: dict, cwd: str | None) -> dict:
    """Source files under the run's working directory are named relative to it:
    shorter, and the same on every machine the report is read on."""
    path = where.get("file")
    if not path or not cwd or not os.path.isabs(path):
        return where
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return where
    if rel.startswith(".."):
        return where
    return {**where, "file": rel}


def _saving_text(finding: dict) -> str:
    text = fmt_saving(finding.get("saving"))
    text = "not estimated" if text == "-" else text
    overlaps = finding.get("overlaps") or []
    if overlaps:
        text += f"; overlaps {', '.join(overlaps)} (the same time: not to be added up)"
    return text


def avoidable_line(report: dict) -> str | None:
    """What the avoidable findings save together, overlapping ones once."""
    totals = [t for t in report.get("avoidable") or [] if t.get("findings")]
    if not totals:
        return None
    if len(totals) > RANK_DISTRIBUTION_OVER:
        shares = [min(1.0, t.get("share_of_step") or 0.0) for t in totals]
        most = sorted(totals, key=lambda t: t.get("share_of_step") or 0.0, reverse=True)
        named = ", ".join(f"rank {t['rank']} ({min(1.0, t.get('share_of_step') or 0.0):.0%})"
                          for t in most[:WORST_NAMED])
        return (f"Together, per rank ({len(totals)} ranks with avoidable findings): at most "
                f"{min(shares):.0%} / {median(shares):.0%} / {max(shares):.0%} of a step "
                f"(min / median / max), overlapping findings counted once; the most: {named}.")
    parts = []
    for t in totals:
        share = min(1.0, t.get("share_of_step") or 0.0)
        rank = f"rank {t['rank']}: " if len(totals) > 1 else ""
        overlapping = t["findings"] - t.get("groups", t["findings"])
        note = (f", {overlapping} of them overlapping others, counted once"
                if overlapping > 0 else "")
        parts.append(f"{rank}at most {share:.0%} of a step from {t['findings']} "
                     f"avoidable finding{'s' if t['findings'] != 1 else ''}{note}")
    return "Together: " + "; ".join(parts) + "."


def findings_views(report: dict) -> list[FindingView]:
    views = []
    cwd = (report.get("meta") or {}).get("cwd")
    for i, f in enumerate(report.get("findings") or [], start=1):
        pairs = [(k, fmt_evidence_value(k, v)) for k, v in (f.get("evidence") or {}).items()]
        saving = f.get("saving") or {}
        fraction = saving.get("share_of_step")
        views.append(
            FindingView(
                rank=i,
                code=f.get("code", "?"),
                verdict=f.get("verdict", "?"),
                title=f.get("title", ""),
                saving=_saving_text(f),
                where=[fmt_where(_relative_where(w, cwd)) for w in (f.get("where") or [])][:5],
                action=f.get("action", ""),
                evidence=[f"{k} = {v}" for k, v in pairs],
                evidence_pairs=pairs,
                saving_share=fraction if isinstance(fraction, (int, float)) and fraction >= 0
                else None,
            )
        )
    return views


def findings_table(report: dict) -> Table | None:
    """One row per finding, for a reader who scans before reading the details."""
    views = findings_views(report)
    if not views:
        return None
    rows = [[str(v.rank), v.code, v.verdict, v.saving, v.title] for v in views]
    return Table("Findings", ["#", "code", "verdict", "saving", "what"], rows,
                 right={0})


# The order in which renderers show the tables: before and after the step line.
TABLES_BEFORE_STEPS = (inputs_table, counters_table, phases_table)
def records_table(report: dict) -> Table | None:
    """What fastenough.record kept, per process (agent record "records")."""
    rows = []
    errors = []
    for a in _meta_agents(report):
        rec = a.get("records") if isinstance(a, dict) else None
        if not isinstance(rec, dict):
            continue
        rank = "-" if a.get("rank") is None else str(a["rank"])
        dtypes = ", ".join(f"{k} x{v}" for k, v in (rec.get("dtypes") or {}).items()) or "-"
        rows.append([rank, fmt_num(rec.get("keys")), dtypes, fmt_bytes(rec.get("bytes")),
                     fmt_num(rec.get("shards")), "stopped" if rec.get("error") else "ok"])
        if rec.get("error"):
            errors.append(f"rank {rank}: {rec['error']}")
    if not rows:
        return None
    note = "compare two runs with `fastenough compare RUN_A RUN_B`"
    if errors:
        note = ("recording stopped after a writer error, the outputs are incomplete: "
                + "; ".join(errors))
    return Table("Recorded outputs (fastenough.record)",
                 ["rank", "keys", "dtypes", "bytes", "shards", "writer"], rows, note=note,
                 right={1, 3, 4})


TABLES_AFTER_STEPS = (devices_table, idle_table, top_kernels_table, top_ops_table,
                      records_table)
