"""The torch.profiler window over a few steady steps: its own phase ("profile"),
so that its overhead never counts as steady time, exported as
trace/rank<R>.pt.trace.json.gz.

The window records shapes and Python stacks: stacks give trace findings the
user's file:line (a serial loop over expert layers is reported where it is
written), at a cost that lands in the window, not in the steady figures.

record_shapes makes the profiler hold a reference to every op's input and
output tensors until its trace is processed (pytorch/pytorch#133444): over the
window's steps activations live longer than they would, which the report
states as the window's peak-RSS rise. The window is nevertheless one profiler
cycle: one profiler cycle per step (schedule repeat=steps, a trace per cycle)
bounded that memory, but torch 2.13's CPU profiler then crashes the process
now and then (heap corruption, segfaults in the next ops: 7 of 24 runs of
tests/real's LSTM language model, none of 24 with one cycle), and a tool that
crashes the program is worse than one that costs memory for a few steps.
What bounds it instead: after each profiled step the window looks at how much
the process's RSS (and, on CUDA, the allocator's bytes) grew since it began,
and ends early, keeping the steps recorded so far, once that passes the
agent's memory bound (+5% or +64 MiB, whichever is larger).
Kineto prints "USDT: ... profiler_start" lines on stderr when a profiler starts
and stops; those calls run with stderr captured and everything else written
back, so the program's own stderr is what it would be without us.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import shutil
import tempfile
import time

from fastenough.agent.memory import allocated_bytes, peak_rss_bytes, rss_bytes
from fastenough.agent.quiet_warnings import ignoring_warnings

_KINETO_LINE = re.compile(rb"^(USDT|STAGE):\S+ \S+ \d+:\d+ \S+\.cpp:\d+\] ")


class ProfileWindow:
    def __init__(self, run_dir, rank: int, pid: int, steps: int, with_stack: bool,
                 shapes: bool = True) -> None:
        self.run_dir = run_dir
        self.rank = rank
        self.pid = pid
        self.steps = steps
        self.with_stack = with_stack
        self.shapes = shapes
        self.done = False  # a window ran (or failed): never a second one
        self.info: dict | None = None  # the agent/<pid>.json "profile" entry
        self._prof = None
        self._hwm_before: int | None = None
        self._base: tuple[int | None, int | None] = (None, None)  # (RSS, device bytes)
        self._torch = None
        self.stopped_early: str | None = None
        self.cost_ns = 0  # start, stop and export: the tool's own time
        # foreign_profiler.ForeignProfilerWatch: told when the profiler calls are
        # ours, so that only the program's own start makes the window stand down.
        self.guard = None

    @property
    def active(self) -> bool:
        return self._prof is not None

    def start(self, torch, first_step: int) -> None:
        from torch.profiler import ProfilerActivity, profile, schedule

        self.done = True
        t0 = time.monotonic_ns()
        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_initialized():
            activities.append(ProfilerActivity.CUDA)
        with ignoring_warnings(), kineto_quiet(), self._ours():
            prof = profile(
                activities=activities,
                record_shapes=self.shapes,
                with_stack=self.with_stack,
                # A schedule makes the profiler mark each step as ProfilerStep#N.
                # One cycle only: see the module docstring.
                schedule=schedule(wait=0, warmup=0, active=self.steps, repeat=1),
            )
            prof.start()
        self._prof = prof
        self._hwm_before = peak_rss_bytes()
        self._torch = torch
        self._base = (rss_bytes(), _device_bytes(torch))
        self.info = {"trace": None, "first_step": first_step, "last_step": None,
                     "start_wall_ns": time.time_ns(), "end_wall_ns": None,
                     "with_stack": self.with_stack}
        self.cost_ns += time.monotonic_ns() - t0

    def step(self) -> None:
        if self._prof is not None:
            t0 = time.monotonic_ns()
            with ignoring_warnings(), kineto_quiet(), self._ours():
                self._prof.step()
            self.cost_ns += time.monotonic_ns() - t0

    def stop(self, last_step: int) -> None:
        prof, self._prof = self._prof, None
        if prof is None:
            return
        t0 = time.monotonic_ns()
        end_wall = time.time_ns()
        with ignoring_warnings(), kineto_quiet(), self._ours():
            prof.stop()
        rel = self._export(prof)
        # The agent's own memory: how much the window raised the process's peak
        # RSS (an upper bound: the program's own growth in those steps counts too).
        after = peak_rss_bytes()
        rise = after - self._hwm_before if after is not None and self._hwm_before else None
        self.info.update({"trace": rel, "last_step": last_step, "end_wall_ns": end_wall,
                          "peak_rss_rise_bytes": rise, "stopped_early": self.stopped_early})
        self.cost_ns += time.monotonic_ns() - t0

    def abandon(self) -> None:
        """After an internal error: stop without writing anything."""
        prof, self._prof = self._prof, None
        if prof is not None:
            with contextlib.suppress(Exception), ignoring_warnings(), kineto_quiet(), \
                    self._ours():
                prof.stop()

    @contextlib.contextmanager
    def _ours(self):
        guard = self.guard
        if guard is None:
            yield
            return
        guard.ours = True
        try:
            yield
        finally:
            guard.ours = False

    def over_memory_bound(self) -> bool:
        """True once the window has made the process grow past the bound: the
        profiler holds its steps' tensors (module docstring), so more steps
        would cost more memory than the tool may take."""
        now_ = (rss_bytes(), _device_bytes(self._torch))
        for what, base, current in zip(("host", "device"), self._base, now_, strict=True):
            if base is not None and current is not None \
                    and current - base > max(MEMORY_BOUND_BYTES, MEMORY_BOUND_SHARE * base):
                self.stopped_early = f"{what} memory grew by {(current - base) >> 20} MiB"
                return True
        return False

    def _export(self, prof) -> str:
        os.makedirs(self.run_dir.file("trace"), exist_ok=True)
        rel = os.path.join("trace", f"rank{self.rank}.pt.trace.json")
        if os.path.exists(self.run_dir.file(rel + ".gz")):  # several main processes
            rel = os.path.join("trace", f"rank{self.rank}.{self.pid}.pt.trace.json")
        path = self.run_dir.file(rel)
        prof.export_chrome_trace(path)
        with open(path, "rb") as src, gzip.open(path + ".gz.tmp", "wb", compresslevel=3) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(path + ".gz.tmp", path + ".gz")
        os.remove(path)
        return rel + ".gz"


MEMORY_BOUND_BYTES = 64 << 20
MEMORY_BOUND_SHARE = 0.05


def _device_bytes(torch) -> int | None:
    try:
        return allocated_bytes(torch)
    except Exception:  # noqa: BLE001 - a device API that fails: the host figure still serves
        return None


@contextlib.contextmanager
def kineto_quiet():
    """Run the block with fd 2 captured; write back every line but Kineto's own
    start/stop notices (other threads' output included, a moment later)."""
    import sys

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, AttributeError, ValueError):
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            kept = b"".join(line for line in tmp.read().splitlines(keepends=True)
                            if not _KINETO_LINE.match(line))
            if kept:
                os.write(2, kept)
