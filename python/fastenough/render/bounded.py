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

from fastenough.report.model import Report


def listed_indices(obj, rows: tuple) -> list[int]:
    """Each listed row's index among all the rank's steps (`obj`: a per-rank object
    of the report that lists rows and may have `omitted`)."""
    omitted = obj.omitted
    if omitted is None or not omitted.kept:
        return list(range(len(rows)))
    out: list[int] = []
    for pair in omitted.kept:
        out.extend(range(int(pair[0]), int(pair[1])))
    return out[:len(rows)]


def steady_rows(obj, rows: tuple) -> list:
    """The listed rows at or after `steady_begin` (an index among all steps)."""
    begin = obj.steady_begin or 0
    return [row for i, row in zip(listed_indices(obj, rows), rows, strict=False) if i >= begin]


def steps_omitted_lines(report: Report) -> list[str]:
    """'19000 of 20000 steps of rank 0 not listed ...', one per rank that has any."""
    out = []
    for r in report.steps.per_rank:
        omitted = r.omitted
        if omitted is None or not omitted.count:
            continue
        out.append(f"{omitted.count} of {r.count} steps of rank {r.rank} not "
                   "listed in the report's per-step tables (it lists the first and last 500 and "
                   "the longest steady step); counts, percentiles and means are over all of them")
    return out


def devices_omitted_line(report: Report) -> str | None:
    """'99744 devices not listed (rank 0: 99744, 498.7 ms busy) ...', or None."""
    rows = report.devices_omitted or ()
    if not rows:
        return None
    from fastenough.render.units import fmt_ns

    total = sum(r.count or 0 for r in rows)
    parts = ", ".join(f"rank {r.rank}: {r.count}, {fmt_ns(r.busy_ns)} busy"
                      for r in rows[:4])
    more = f", and {len(rows) - 4} more ranks" if len(rows) > 4 else ""
    return (f"{total} devices not listed ({parts}{more}): the report lists each rank's 256 "
            "busiest devices")
