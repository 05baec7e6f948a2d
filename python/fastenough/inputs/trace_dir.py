"""Traces in a directory, as `torch.profiler.tensorboard_trace_handler` writes them.

The handler writes one file per worker (rank) and profiler cycle:
`<worker>.<time_ns>.pt.trace.json[.gz]`, worker being `<host>_<pid>` unless the
user named it. One cycle of every worker is one *window*: its files cover the
same steps, so they are analysed together as the ranks of one job. Files of
different windows are never analysed together: their timelines do not overlap,
and the time between them is not idle device time.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from fastenough.errors import InputNotFoundError, UsageError

_HANDLER_NAME = re.compile(r"^(?P<worker>.+)\.(?P<stamp>\d+)\.pt\.trace\.json(\.gz)?$")
_TRACE_SUFFIXES = (".pt.trace.json", ".pt.trace.json.gz", ".json", ".json.gz")


@dataclass
class DirSelection:
    paths: list[str]  # the files of the chosen window, one per worker
    note: str | None  # what was chosen, for stderr; None when nothing to say


def _worker_files(directory: str, names: list[str]) -> dict[str, list[tuple[int, str]]]:
    workers: dict[str, list[tuple[int, str]]] = {}
    for name in names:
        m = _HANDLER_NAME.match(name)
        if m:
            workers.setdefault(m["worker"], []).append(
                (int(m["stamp"]), os.path.join(directory, name)))
    for files in workers.values():
        files.sort()
    return workers


def select_traces(directory: str, window: int | None = None) -> DirSelection:
    """The trace files of one window of `directory` (default: the newest)."""
    try:
        names = sorted(os.listdir(directory))
    except OSError as e:
        raise InputNotFoundError(f"{directory}: {e.strerror or e}") from None
    workers = _worker_files(directory, names)
    if not workers:
        # Not the handler's layout: every trace-looking file, as ranks of one job.
        # (rank<R>.callsites.json: the call lines fastenough run writes beside a trace)
        paths = [os.path.join(directory, n) for n in names
                 if n.endswith(_TRACE_SUFFIXES) and not n.endswith(".callsites.json")
                 and os.path.isfile(os.path.join(directory, n))]
        if not paths:
            raise InputNotFoundError(
                f"{directory}: no trace files (*.pt.trace.json[.gz] or *.json[.gz]) in it")
        if window not in (None, 1):
            raise UsageError(f"--window {window}: {directory} holds one window")
        return DirSelection(paths, None)

    windows = max(len(files) for files in workers.values())
    chosen = windows if window is None else window
    if not 1 <= chosen <= windows:
        raise UsageError(f"--window {window}: {directory} holds windows 1..{windows}")
    paths = []
    short = []
    for worker, files in sorted(workers.items()):
        # Windows are counted from the end so that a worker that started a
        # cycle late still lines up with the others on the newest window.
        index = len(files) - (windows - chosen) - 1
        if index >= 0:
            paths.append(files[index][1])
        else:
            short.append(worker)
    note = None
    if windows > 1:
        note = (f"{directory}: {windows} profiler windows per worker; analysing window "
                f"{chosen} of {windows} ({len(paths)} worker(s)); choose with --window N")
    if short:
        note = (note or f"{directory}: window {chosen}") + \
            f"; no file of this window for {', '.join(short)}"
    return DirSelection(paths, note)
