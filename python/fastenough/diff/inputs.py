"""One side of a diff: a run directory (report.json, steps.jsonl and trace/), a
report.json alone, a directory of traces, or trace files. Nothing is parsed here
but the report's JSON."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from fastenough.errors import BadInputError, InputNotFoundError
from fastenough.report import Report, load
from fastenough.store.run_dir import open_run_file, read_run_file


@dataclass
class Side:
    path: str
    kind: str  # "run" (a run directory), "report" (a report.json alone) or "traces"
    report: Report | None = None
    run_dir: str | None = None  # kind "run": its steps.jsonl and protocol.json are read
    traces: list[str] = field(default_factory=list)
    note: str | None = None  # e.g. "no trace in RUN": said on stderr and in the JSON


def _load_report(path: str) -> Report:
    try:
        report = json.loads(read_run_file(path))
    except OSError as e:  # a FIFO or device included: refused, never waited on
        raise InputNotFoundError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:
        raise BadInputError(f"{path}: not a fastenough report (unreadable JSON: {e})") from None
    # Validated once: one that is no report, or a damaged one, names the JSON path
    # ("report.schema: expected 'fastenough.report/1', got ...").
    return load(report, source=path)


def _is_report_file(path: str) -> bool:
    """A fastenough report names its schema in its first lines; a trace never does."""
    try:
        with open_run_file(path) as f:
            head = f.read(512)
    except OSError:
        return False
    return b'"fastenough.report/1"' in head


def _traces_in(directory: str, required: bool) -> list[str]:
    """The newest profiler window of `directory` (inputs/trace_dir.py); [] when it
    holds none and none is required."""
    from fastenough.inputs.trace_dir import select_traces

    if not required and not os.path.isdir(directory):
        return []
    try:
        return [os.path.abspath(p) for p in select_traces(directory).paths]
    except InputNotFoundError:
        if required:
            raise
        return []


def resolve_side(path: str) -> Side:
    """A path the user gave: a run directory, a trace directory or a trace file."""
    if not os.path.exists(path):
        raise InputNotFoundError(f"{path}: not found")
    if not os.path.isdir(path):
        from fastenough.inputs.input_file import require_regular_file

        require_regular_file(path)
    if os.path.isfile(path):
        if _is_report_file(path):
            return Side(path=path, kind="report", report=_load_report(path))
        return Side(path=path, kind="traces", traces=[os.path.abspath(path)])
    report_path = os.path.join(path, "report.json")
    if os.path.isfile(report_path):
        side = Side(path=path, kind="run", report=_load_report(report_path), run_dir=path)
        side.traces = _traces_in(os.path.join(path, "trace"), required=False)
        if not side.traces:
            side.note = f"{path}: no trace in this run directory (trace/ is empty or absent)"
        return side
    return Side(path=path, kind="traces", traces=_traces_in(path, required=True))
