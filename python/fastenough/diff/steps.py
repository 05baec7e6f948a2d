"""The steps.jsonl rows `fastenough diff` reads (docs/run-directory.md): the
steady steps the regression gate compares, and the items per profiled step that
put the trace diff per item."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from fastenough.store.run_dir import open_run_file


def read_steps(run_dir: str | Path) -> list[dict]:
    """Every readable step row; a damaged line (a run killed mid-write) is skipped."""
    try:
        f = open_run_file(Path(run_dir) / "steps.jsonl")
    except OSError:  # missing, or no regular file (a FIFO the program left)
        return []
    rows = []
    with f:
        for line in f:
            try:
                row = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                continue
            if not isinstance(row, dict):
                continue
            start, end = row.get("start_mono_ns"), row.get("end_mono_ns")
            if isinstance(start, int) and isinstance(end, int) and end >= start:
                rows.append(row)
    return rows


def _items(row: dict) -> float | None:
    v = row.get("items")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _rank(row: dict) -> int:
    r = row.get("rank")
    return r if isinstance(r, int) else 0


@dataclass
class SteadySteps:
    durations_ns: list[float]
    items: list[float] | None  # one per step; None unless every step counted its items
    rank: int | None
    mode: str | None


def steady_steps(rows: list[dict], mode: str | None) -> SteadySteps:
    """The steady steps of the lowest rank in `mode` (the report's headline mode;
    None: any). One rank, because the ranks of a job step in lockstep: their
    times are not independent samples, and pooling them would narrow the
    interval without adding information."""
    steady = [r for r in rows
              if r.get("phase") == "steady" and (mode is None or r.get("mode") == mode)]
    if not steady:
        return SteadySteps([], None, None, mode)
    rank = min(_rank(r) for r in steady)
    mine = [r for r in steady if _rank(r) == rank]
    items = [_items(r) for r in mine]
    return SteadySteps([float(r["end_mono_ns"] - r["start_mono_ns"]) for r in mine],
                       None if any(i is None for i in items) else items, rank, mode)


def profiled_items_per_step(rows: list[dict]) -> float | None:
    """Items per step of the steps the profiler window covered (phase "profile"),
    the lowest rank's median; the median of every step when the window's steps
    are not in the file. None when steps do not count their items."""
    from fastenough import _core

    for phase in ("profile", None):
        chosen = [r for r in rows if phase is None or r.get("phase") == phase]
        if not chosen:
            continue
        rank = min(_rank(r) for r in chosen)
        items = [_items(r) for r in chosen if _rank(r) == rank]
        if items and all(i is not None for i in items):
            return float(_core.median(items))
        return None
    return None
