"""The fastenough.diff/1 document: both sides, the run block (runs.py) when both
are run directories, and the trace block (C++) when both have traces."""

from __future__ import annotations

import json

from fastenough.diff.inputs import Side
from fastenough.diff.runs import side_by_side

SCHEMA = "fastenough.diff/1"


def _side(s: Side) -> dict:
    return {"path": s.path, "kind": s.kind, "traces": s.traces}


def build(a: Side, b: Side, min_rel: float, min_abs_ns: float) -> dict:
    notes = [s.note for s in (a, b) if s.note]
    run = side_by_side(a.report, b.report) if a.report and b.report else None
    if (a.report is None) != (b.report is None):
        notes.append("only one side is a run directory: no run-level comparison")
    trace = None
    if a.traces and b.traces:
        from fastenough import _core

        trace = json.loads(_core.diff_traces(a.traces, b.traces, min_rel, min_abs_ns))
    else:
        notes.append("no trace diff: a side has no trace")
    return {"schema": SCHEMA, "a": _side(a), "b": _side(b), "run": run, "trace": trace,
            "notes": notes}
