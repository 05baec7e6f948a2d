"""The run-level half of `fastenough diff`: two report.json side by side.

Phases are compared by name on the lowest rank of each run (host time, summed
when a phase repeats, as "steady" does around the profiler window). Findings
are matched by code and first location (file:line, or none for run-wide
findings); their saving is the report's bound per step.
"""

from __future__ import annotations

from fastenough.report.model import Finding, Report, Steps

# A finding whose saving per step moved by less than this share is "same".
SAVING_CHANGE_SHARE = 0.05

THROUGHPUT_KEYS = ("steady_steps_per_s", "items_per_s", "tokens_per_s")


def _pair(a, b) -> dict:
    ratio = b / a if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a else None
    return {"a": a, "b": b, "ratio": ratio}


def _phase_times(report: Report) -> dict[str, int]:
    phases = report.phases
    first = min(p.rank for p in phases) if phases else 0
    out: dict[str, int] = {}
    for p in phases:
        if p.rank == first and p.host_ns is not None:
            out[p.name] = out.get(p.name, 0) + int(p.host_ns)
    return out


def _phases(a: Report, b: Report) -> list[dict]:
    ta, tb = _phase_times(a), _phase_times(b)
    names = list(ta) + [n for n in tb if n not in ta]
    rows = []
    for n in names:
        row = {"name": n, **_pair(ta.get(n), tb.get(n))}
        row["delta_ns"] = (row["b"] or 0) - (row["a"] or 0)
        rows.append(row)
    return rows


def _peak(values) -> int | None:
    vals = [v for v in values if isinstance(v, (int, float)) and v >= 0]
    return int(max(vals)) if vals else None


def _memory(report: Report) -> dict:
    phases = report.phases
    details = report.run_details.phases if report.run_details is not None else ()
    return {
        "rss_max_bytes": _peak(p.rss_max for p in details),
        "alloc_peak_bytes": _peak(p.alloc_peak for p in phases),
        "reserved_peak_bytes": _peak(p.reserved_peak for p in phases),
        "device_used_max_bytes": _peak(p.mem_used_max for p in phases),
    }


def finding_location(f: Finding) -> str | None:
    for w in f.where:
        if w.file:
            return f"{w.file}:{w.line or w.def_line or 0}"
    return None


def _saving(f: Finding):
    s = f.saving.per_step_ns
    return None if s in (None, -1) else s


def _finding_status(a: Finding | None, b: Finding | None) -> str:
    if a is None:
        return "new"
    if b is None:
        return "gone"
    sa, sb = _saving(a), _saving(b)
    if sa is None and sb is None:
        return "same"
    if sa is None or sb is None:
        return "changed"
    return "changed" if abs(sb - sa) > SAVING_CHANGE_SHARE * max(abs(sa), abs(sb)) else "same"


def _findings(a: Report, b: Report) -> list[dict]:
    def by_key(report: Report) -> dict:
        out: dict = {}
        for f in report.findings:
            out.setdefault((f.code, finding_location(f)), f)
        return out

    fa, fb = by_key(a), by_key(b)
    rows = []
    for key in list(fa) + [k for k in fb if k not in fa]:
        x, y = fa.get(key), fb.get(key)
        sa = _saving(x) if x else None
        sb = _saving(y) if y else None
        rows.append({
            "status": _finding_status(x, y), "code": key[0], "location": key[1],
            "title_a": x.title if x else None, "title_b": y.title if y else None,
            "verdict_a": x.verdict if x else None,
            "verdict_b": y.verdict if y else None,
            "saving_per_step_ns_a": sa, "saving_per_step_ns_b": sb,
        })
    order = {"new": 0, "gone": 1, "changed": 2, "same": 3}
    rows.sort(key=lambda r: order[r["status"]])  # stable: report order within a status
    return rows


def _time_per_item(steps: Steps) -> float | None:
    """The steady step median over the items of a steady step (items/s over
    steps/s): what a step costs per item, comparable across batch sizes."""
    median, ips, sps = steps.steady_median_ns, steps.items_per_s, steps.steady_steps_per_s
    if not (median and ips and sps):
        return None
    return median / (ips / sps)


def _status(report: Report) -> str | None:
    return report.measurement.status if report.measurement is not None else None


def side_by_side(a: Report, b: Report) -> dict:
    """The "run" block of fastenough.diff/1."""
    sa, sb = a.steps, b.steps
    ma, mb = _memory(a), _memory(b)
    return {
        "phases": _phases(a, b),
        "throughput": {k: _pair(getattr(sa, k), getattr(sb, k)) for k in THROUGHPUT_KEYS},
        "steady_step_median_ns": _pair(sa.steady_median_ns, sb.steady_median_ns),
        "steady_time_per_item_ns": _pair(_time_per_item(sa), _time_per_item(sb)),
        "steady_steps": _pair(sa.steady_count, sb.steady_count),
        "memory": {k: _pair(ma[k], mb[k]) for k in ma},
        "measurement": _pair(_status(a), _status(b)),
        "findings": _findings(a, b),
    }
