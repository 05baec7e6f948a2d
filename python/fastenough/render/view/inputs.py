"""What the report was made from: the trace files read, and the counters of
trace problems (those that lost data or signal errors as a table, tolerated
quirks as one line)."""

from __future__ import annotations

import os

from fastenough.render.ranks import RANK_DETAIL_MAX, WORST_RANKS
from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_num
from fastenough.report.model import Report


def inputs_table(report: Report) -> Table | None:
    inputs = report.inputs
    if not inputs:
        return None
    base = report.meta.cwd
    rows = [
        [
            display_path(i.path, base),
            i.format,
            fmt_bytes(i.bytes),
            fmt_num(i.events),
            ", ".join(str(r) for r in i.ranks) or "-",
        ]
        for i in inputs
    ]
    note = ""
    if len(inputs) > RANK_DETAIL_MAX:
        # One file per rank: the first few, then the rest in one row.
        rest = inputs[WORST_RANKS:]
        ranks = sorted(r for i in rest for r in i.ranks)
        rows = rows[:WORST_RANKS] + [[
            f"… {len(rest)} more files", ", ".join(sorted({i.format for i in rest})),
            fmt_bytes(sum(i.bytes or 0 for i in rest)),
            fmt_num(sum(i.events or 0 for i in rest)),
            f"{ranks[0]}–{ranks[-1]}" if ranks else "-"]]
        note = f"{len(inputs)} files in all; every one in --json (inputs)."
    return Table("Inputs", ["file", "format", "size", "events", "rank"], rows, note=note,
                 right={2, 3})


def display_path(path: str, base: str | None = None) -> str:
    """Relative to the run's working directory (else the current one) when that is
    shorter and stays inside it: a run's report reads the same wherever it is rendered."""
    try:
        rel = os.path.relpath(path, base or os.getcwd())
    except ValueError:
        return path
    return rel if len(rel) < len(path) and not rel.startswith("..") else path


def counters_table(report: Report) -> Table | None:
    """Counters that lost data or signal errors; tolerated quirks go to counters_line."""
    counters = [c for c in report.counters if c.count and c.severity != "info"]
    if not counters:
        return None
    rows = [[c.name, c.severity, fmt_num(c.count), c.description] for c in counters]
    return Table("Trace problems (counted; parsing went on)",
                 ["counter", "severity", "count", "meaning"], rows, right={2})


def counters_line(report: Report) -> str | None:
    infos = [c for c in report.counters if c.count and c.severity == "info"]
    if not infos:
        return None
    names = ", ".join(f"{c.name} ({fmt_num(c.count)})" for c in infos)
    return f"tolerated trace quirks, nothing lost: {names} (details in --json)"
