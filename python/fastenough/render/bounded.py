"""Reading the per-step and per-device lists of a bounded report (issue 34, item 9).

A rank of more than 1000 steps lists the first 500, the last 500 and its
longest steady step in `steps.per_rank[].windows`, `step_breakdown.per_rank[].steps`,
`efficiency.devices[].steps` and `memory[].steps`; the object that holds such a
list then has `omitted: {count, kept: [[begin, end], ...]}` (the kept rows'
index ranges among all the rank's steps). A rank of more than 256 devices lists
its 256 busiest, and `devices_omitted` sums the others. Counts, percentiles
and means stay those of every step and device (cpp/fastenough/report/row_bound.h).
"""

from __future__ import annotations


def listed_indices(obj: dict, rows: list) -> list[int]:
    """Each listed row's index among all the rank's steps."""
    omitted = obj.get("omitted")
    if not isinstance(omitted, dict) or not omitted.get("kept"):
        return list(range(len(rows)))
    out: list[int] = []
    for pair in omitted["kept"]:
        out.extend(range(int(pair[0]), int(pair[1])))
    return out[:len(rows)]


def steady_rows(obj: dict, rows: list) -> list:
    """The listed rows at or after `steady_begin` (an index among all steps)."""
    begin = obj.get("steady_begin") or 0
    return [row for i, row in zip(listed_indices(obj, rows), rows, strict=False) if i >= begin]


def steps_omitted_lines(report: dict) -> list[str]:
    """'19000 of 20000 steps of rank 0 not listed ...', one per rank that has any."""
    out = []
    for r in (report.get("steps") or {}).get("per_rank") or []:
        omitted = r.get("omitted") if isinstance(r, dict) else None
        if not isinstance(omitted, dict) or not omitted.get("count"):
            continue
        out.append(f"{omitted['count']} of {r.get('count')} steps of rank {r.get('rank')} not "
                   "listed in the report's per-step tables (it lists the first and last 500 and "
                   "the longest steady step); counts, percentiles and means are over all of them")
    return out


def devices_omitted_line(report: dict) -> str | None:
    """'99744 devices not listed (rank 0: 99744, 498.7 ms busy) ...', or None."""
    rows = [r for r in report.get("devices_omitted") or [] if isinstance(r, dict)]
    if not rows:
        return None
    from fastenough.render.units import fmt_ns

    total = sum(r.get("count") or 0 for r in rows)
    parts = ", ".join(f"rank {r.get('rank')}: {r.get('count')}, {fmt_ns(r.get('busy_ns'))} busy"
                      for r in rows[:4])
    more = f", and {len(rows) - 4} more ranks" if len(rows) > 4 else ""
    return (f"{total} devices not listed ({parts}{more}): the report lists each rank's 256 "
            "busiest devices")
