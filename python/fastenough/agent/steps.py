"""The steps of one process: recorded as tuples in the hot loop, written as
steps.jsonl lines now and then (every `flush_every` steps or once a second), so
that a process killed without atexit (SIGKILL, os._exit) loses at most about a
second of steps.

A line: {"rank","pid","index","start_mono_ns","end_mono_ns","start_wall_ns",
"end_wall_ns","items","tokens","source","phase","mode"}; mode is "train" or
"eval" (grad mode and module.training at the step), so that the steady figures
of a program that trains and evaluates are reported apart.
"""

from __future__ import annotations

import functools
import time

from fastenough.agent.run_dir_writer import dumps

# Step sources, lowest priority first: once a higher one is seen it wins (per mode).
SOURCES = ("module", "dataloader", "optimizer", "explicit")
SRC_MODULE, SRC_DATALOADER, SRC_OPTIMIZER, SRC_EXPLICIT = range(4)
FLUSH_INTERVAL_NS = 1_000_000_000


class StepLog:
    def __init__(self, run_dir, rank: int, pid: int, flush_every: int) -> None:
        self.run_dir = run_dir
        self.rank = rank
        self.pid = pid
        self.flush_every = max(1, flush_every)
        self.buf: list[tuple] = []
        self.index = 0  # steps recorded so far (the next step's index)
        self.last_end: tuple[int, int] | None = None
        self.last_start: tuple[int, int] | None = None  # of the last step recorded
        self.last_flush = time.monotonic_ns()

    def record(self, start, end, items, tokens, source: int, phase: str, mode: str) -> None:
        self.buf.append((self.index, start, end, items, tokens, source, phase, mode))
        self.index += 1
        self.last_end = end
        self.last_start = start
        if len(self.buf) >= self.flush_every or end[0] - self.last_flush >= FLUSH_INTERVAL_NS:
            self.flush()

    def replay(self, open_step, records, source: int, phase: str, mode: str):
        """Deferred boundaries (mono, wall, items, tokens) in the steady loop: each
        closes the open step and opens the next, in one loop. Returns the step
        left open and the durations of those closed."""
        buf, index, start = self.buf, self.index, open_step
        durations = []
        last_start = None
        for mono, wall, items, tokens in records:
            buf.append((index, start[:2], (mono, wall), start[2], start[3], source, phase, mode))
            durations.append(mono - start[0])
            index += 1
            last_start, start = start, (mono, wall, items, tokens)
        if last_start is not None:
            self.index = index
            self.last_end = start[:2]
            self.last_start = last_start[:2]
        if len(buf) >= self.flush_every or start[0] - self.last_flush >= FLUSH_INTERVAL_NS:
            self.flush()
        return start, durations

    def take_back_last(self) -> bool:
        """Drop the last step if it is still in memory (a sliver a lower source
        closed in the iteration where a higher one appeared)."""
        if not self.buf or self.last_start is None:
            return False
        self.buf.pop()
        self.index -= 1
        self.last_start = None
        return True

    def flush(self) -> None:
        self.last_flush = time.monotonic_ns()
        if not self.buf:
            return
        buf, self.buf = self.buf, []
        head = f'{{"rank":{self.rank},"pid":{self.pid},"index":'
        # Formatted by hand: json.dumps per line cost more than the step itself
        # on small steps. Every value is an int, None or one of our own names.
        self.run_dir.append_lines("steps.jsonl", [
            f'{head}{index},"start_mono_ns":{start[0]},"end_mono_ns":{end[0]},'
            f'"start_wall_ns":{start[1]},"end_wall_ns":{end[1]},'
            f'"items":{_json_int(items)},"tokens":{_json_int(tokens)},'
            f'"source":"{SOURCES[source]}","phase":{_json_str(phase)},"mode":"{mode}"}}'
            for index, start, end, items, tokens, source, phase, mode in buf])

    def clear(self) -> None:
        self.buf = []


def _json_int(v) -> str:
    return "null" if v is None else str(int(v))


@functools.lru_cache(maxsize=64)
def _json_str(v) -> str:
    return "null" if v is None else dumps(str(v))
