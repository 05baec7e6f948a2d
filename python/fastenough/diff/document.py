"""The fastenough.diff/1 document: both sides, the run block (runs.py) when both
are reports, the trace block (C++) when both have traces, and the regression
gate (gate.py) when asked for."""

from __future__ import annotations

import json

from fastenough.diff.inputs import Side
from fastenough.diff.runs import side_by_side

SCHEMA = "fastenough.diff/1"


def _side(s: Side) -> dict:
    return {"path": s.path, "kind": s.kind, "traces": s.traces}


def _items_per_profiled_step(s: Side) -> float:
    """Items per step of the profiled steps (0 when unknown: the trace diff then
    stays per step)."""
    if not s.run_dir:
        return 0.0
    from fastenough.diff.steps import profiled_items_per_step, read_steps

    return profiled_items_per_step(read_steps(s.run_dir)) or 0.0


def build(a: Side, b: Side, min_rel: float, min_abs_ns: float,
          max_regression_pct: float | None = None, confidence: float = 0.95,
          peaks: dict | None = None) -> dict:
    """peaks: --device / --peaks as the core takes them (inputs/peaks.py)."""
    notes = [s.note for s in (a, b) if s.note]
    run = side_by_side(a.report, b.report) if a.report and b.report else None
    if (a.report is None) != (b.report is None):
        notes.append("only one side is a run directory or report: no run-level comparison")
    trace = None
    if a.traces and b.traces:
        from fastenough import _core

        ia, ib = _items_per_profiled_step(a), _items_per_profiled_step(b)
        if not (ia and ib):
            ia = ib = 0.0
        trace = json.loads(_core.diff_traces(a.traces, b.traces, min_rel, min_abs_ns, ia, ib,
                                             **(peaks or {})))
    else:
        notes.append("no trace diff: a side has no trace")
    gate = None
    if max_regression_pct is not None:
        from fastenough.diff.gate import gate as regression_gate

        gate = regression_gate(a, b, max_regression_pct, confidence)
    return {"schema": SCHEMA, "a": _side(a), "b": _side(b), "run": run, "trace": trace,
            "gate": gate, "notes": notes}
