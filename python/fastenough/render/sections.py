"""The report's sections as plain rows (title, header, rows), so that every
renderer (terminal, Markdown) shows the same content from one definition."""

from __future__ import annotations

import os
import shlex
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
    rows = [
        [
            _display_path(i.get("path", "-")),
            i.get("format", "-"),
            fmt_bytes(i.get("bytes")),
            fmt_num(i.get("events")),
            ", ".join(str(r) for r in (i.get("ranks") or [])) or "-",
        ]
        for i in inputs
    ]
    return Table("Inputs", ["file", "format", "size", "events", "rank"], rows, right={2, 3})


def _display_path(path: str) -> str:
    """Relative to the working directory when that is shorter and stays inside it."""
    try:
        rel = os.path.relpath(path)
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


def run_line(report: dict) -> str | None:
    """'`python eval.py` exited 0 after 15.9 s' for reports of `fastenough run`."""
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
    line = f"`{command}` {ending}"
    if run.get("wall_ns"):
        line += f" after {fmt_ns(run['wall_ns'])}"
    return line


def phases_table(report: dict) -> Table | None:
    phases = report.get("phases") or []
    if not phases:
        return None
    details = (report.get("run_details") or {}).get("phases") or []
    if len(details) != len(phases):
        details = [{} for _ in phases]
    multi_rank = len({p.get("rank") for p in phases}) > 1
    # The sampler sees the process tree: with several ranks its RSS is the job's.
    header = (["rank"] if multi_rank else []) + [
        "phase", "host time", "device busy", "util", "power", "mem used", "alloc peak",
        "reserved peak", "host CPU", "RSS max (all ranks)" if multi_rank else "RSS max",
    ]
    modes = {d.get("mode") for d in details if d.get("mode")}
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


def _drop_empty_columns(t: Table) -> Table:
    """Columns absent for every row (no GPU: no util, power, ...) only add noise."""
    keep = [i for i in range(len(t.header)) if i == 0 or any(r[i] != "-" for r in t.rows)]
    header = [t.header[i] for i in keep]
    return Table(
        t.title,
        header,
        [[r[i] for i in keep] for r in t.rows],
        note=t.note if "device busy" in header else "",
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
        rates = _rates(m)
        if rates:
            out.append(f"{label}steady throughput: " + ", ".join(rates))
    notes = _steps_notes(report, by_mode)
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    return out


def _rates(m: dict) -> list[str]:
    rates = []
    if m.get("steps_per_s"):
        rates.append(f"{m['steps_per_s']:.2f} steps/s")
    if m.get("items_per_s"):
        rates.append(f"{m['items_per_s']:.1f} items/s")
    if m.get("tokens_per_s"):
        tokens = f"{m['tokens_per_s']:.0f} tokens/s"
        if m.get("real_tokens_per_s"):
            tokens += f" ({m['real_tokens_per_s']:.0f} without padding)"
        rates.append(tokens)
    return rates


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


def devices_table(report: dict) -> Table | None:
    devices = report.get("devices") or []
    if not devices:
        return None
    rows = []
    for d in devices:
        span = d.get("span_ns")
        rows.append([
            str(d.get("rank", "-")),
            _device_label(d),
            fmt_ns(span),
            fmt_share(share(d.get("busy_ns"), span)),
            fmt_share(share(d.get("compute_ns"), span)),
            fmt_share(share(d.get("comm_ns"), span)),
            fmt_share(share(d.get("memcpy_ns"), span)),
            fmt_share(share(d.get("memset_ns"), span)),
            fmt_num(d.get("kernel_count")),
        ])
    return Table(
        "Device time (share of the span from first to last device activity)",
        ["rank", "device", "span", "busy", "compute", "comm", "memcpy", "memset", "kernels"],
        rows,
        note="busy = compute + comm + memcpy + memset; communication overlapped with "
        "compute counts as compute.",
        right=set(range(2, 9)),
    )


def idle_table(report: dict) -> Table | None:
    devices = report.get("devices") or []
    if not devices:
        return None
    rows = []
    for d in devices:
        span = d.get("span_ns")
        idle = d.get("device_idle") or {}
        rows.append([
            str(d.get("rank", "-")),
            _device_label(d),
            fmt_share(share(d.get("idle_ns"), span)),
            fmt_share(share(idle.get("host_wait_ns"), span)),
            fmt_share(share(idle.get("kernel_wait_ns"), span)),
            fmt_share(share(idle.get("other_ns"), span)),
            fmt_num(d.get("short_kernel_count")),
        ])
    return Table(
        "Why the device was idle (share of span)",
        ["rank", "device", "idle", "host wait", "kernel wait", "other", "short kernels"],
        rows,
        note="host wait: the device had finished and the host had not yet launched the next "
        "op; kernel wait: gaps under 30 µs between ops already queued; short kernels: kernels "
        "that ran shorter than the call that launched them. Per-stream gaps as HTA counts "
        "them: --json, devices[].streams.",
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


def findings_views(report: dict) -> list[FindingView]:
    views = []
    for i, f in enumerate(report.get("findings") or [], start=1):
        evidence = [
            f"{k} = {fmt_evidence_value(k, v)}" for k, v in (f.get("evidence") or {}).items()
        ]
        views.append(
            FindingView(
                rank=i,
                code=f.get("code", "?"),
                verdict=f.get("verdict", "?"),
                title=f.get("title", ""),
                saving=fmt_saving(f.get("saving")),
                where=[fmt_where(w) for w in (f.get("where") or [])][:5],
                action=f.get("action", ""),
                evidence=evidence,
            )
        )
    return views


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
