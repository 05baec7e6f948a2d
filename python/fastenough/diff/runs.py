"""The run-level half of `fastenough diff`: two report.json side by side.

Phases are compared by name on the lowest rank of each run (host time, summed
when a phase repeats, as "steady" does around the profiler window). Findings
are matched by code and first location (file:line, or none for run-wide
findings); their saving is the report's bound per step.
"""

from __future__ import annotations

# A finding whose saving per step moved by less than this share is "same".
SAVING_CHANGE_SHARE = 0.05

THROUGHPUT_KEYS = ("steady_steps_per_s", "items_per_s", "tokens_per_s")


def _pair(a, b) -> dict:
    ratio = b / a if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a else None
    return {"a": a, "b": b, "ratio": ratio}


def _phase_times(report: dict) -> dict[str, int]:
    phases = report.get("phases") or []
    ranks = [p.get("rank") or 0 for p in phases]
    first = min(ranks) if ranks else 0
    out: dict[str, int] = {}
    for p, rank in zip(phases, ranks, strict=True):
        if rank == first and p.get("host_ns") is not None:
            out[p["name"]] = out.get(p["name"], 0) + int(p["host_ns"])
    return out


def _phases(a: dict, b: dict) -> list[dict]:
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


def _memory(report: dict) -> dict:
    phases = report.get("phases") or []
    details = (report.get("run_details") or {}).get("phases") or []
    return {
        "rss_max_bytes": _peak(p.get("rss_max") for p in details),
        "alloc_peak_bytes": _peak(p.get("alloc_peak") for p in phases),
        "reserved_peak_bytes": _peak(p.get("reserved_peak") for p in phases),
        "device_used_max_bytes": _peak(p.get("mem_used_max") for p in phases),
    }


def finding_location(f: dict) -> str | None:
    for w in f.get("where") or []:
        if w.get("file"):
            return f"{w['file']}:{w.get('line') or w.get('def_line', 0)}"
    return None


def _saving(f: dict):
    s = (f.get("saving") or {}).get("per_step_ns")
    return None if s in (None, -1) else s


def _finding_status(a: dict | None, b: dict | None) -> str:
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


def _findings(a: dict, b: dict) -> list[dict]:
    def by_key(report: dict) -> dict:
        out: dict = {}
        for f in report.get("findings") or []:
            out.setdefault((f.get("code"), finding_location(f)), f)
        return out

    fa, fb = by_key(a), by_key(b)
    rows = []
    for key in list(fa) + [k for k in fb if k not in fa]:
        x, y = fa.get(key), fb.get(key)
        sa = _saving(x) if x else None
        sb = _saving(y) if y else None
        rows.append({
            "status": _finding_status(x, y), "code": key[0], "location": key[1],
            "title_a": x.get("title") if x else None, "title_b": y.get("title") if y else None,
            "verdict_a": x.get("verdict") if x else None,
            "verdict_b": y.get("verdict") if y else None,
            "saving_per_step_ns_a": sa, "saving_per_step_ns_b": sb,
        })
    order = {"new": 0, "gone": 1, "changed": 2, "same": 3}
    rows.sort(key=lambda r: order[r["status"]])  # stable: report order within a status
    return rows


def _time_per_item(steps: dict) -> float | None:
    """The steady step median over the items of a steady step (items/s over
    steps/s): what a step costs per item, comparable across batch sizes."""
    median, ips, sps = steps.get("steady_median_ns"), steps.get("items_per_s"), \
        steps.get("steady_steps_per_s")
    if not (median and ips and sps):
        return None
    return median / (ips / sps)


def side_by_side(a: dict, b: dict) -> dict:
    """The "run" block of fastenough.diff/1."""
    sa, sb = a.get("steps") or {}, b.get("steps") or {}
    ma, mb = _memory(a), _memory(b)
    return {
        "phases": _phases(a, b),
        "throughput": {k: _pair(sa.get(k), sb.get(k)) for k in THROUGHPUT_KEYS},
        "steady_step_median_ns": _pair(sa.get("steady_median_ns"), sb.get("steady_median_ns")),
        "steady_time_per_item_ns": _pair(_time_per_item(sa), _time_per_item(sb)),
        "steady_steps": _pair(sa.get("steady_count"), sb.get("steady_count")),
        "memory": {k: _pair(ma[k], mb[k]) for k in ma},
        "measurement": _pair((a.get("measurement") or {}).get("status"),
                             (b.get("measurement") or {}).get("status")),
        "findings": _findings(a, b),
    }
