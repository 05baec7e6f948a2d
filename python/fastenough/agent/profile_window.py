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
What bounds it instead: the bound (+5% or +64 MiB, whichever is larger) is for
the whole run, and the window may spend WINDOW_SHARE of it (the rest is the
agent's own standing memory: its imports, the checks' records and the heap
they fragment, 6 to 16 MiB measured under run --no-trace), less what earlier
windows spent. What the window costs is predicted from two measures, watched
every 10 ms (memory_watchdog.py) and at each profiled step's end:
- how far the RSS stands above the peak before the window: the profiler's
  records, interleaved with a CPU step's large short-lived activations,
  fragment the heap (sentence-transformers' encode: RSS +79 MiB over 4 steps
  while the heap in use rose 4 MiB);
- the heap in use (memory.heap_in_use_bytes, glibc), which grows when the
  records fill memory the program had freed (RSS missed that 66 times on the
  LSTM under LBFGS), times what stopping costs: torch's profiler turns its raw
  records into result objects when it stops, and that took 3 to 6 times the
  window's heap growth on programs of few Python calls (the LSTM, dcgan,
  sentence-transformers) and 19 to 20 times with Python stacks on Python-heavy
  steps (REINFORCE's episodes, Lightning's loop). The expansion starts at 20
  with stacks, 3 without, and is raised to the largest ratio this process has
  shown. Inside a step the heap also holds the step's own activations, which
  are not the window's: the step's growth counts at the expansion of a
  stack-free window, and at each step's end the heap's growth since the window
  began (activations freed) counts at the full expansion, for the steps done
  and for one more step like those after the first (the first also holds the
  profiler's one-time set-up); after the first step alone, one more like it
  less what start() itself grew the heap and the RSS by (lightning-fit-val:
  the start 0.29 MiB of a first step's 1.34, later steps 0.5 to 0.7; counted
  again, one more step predicted 50 MiB against the window's 48 and cut it
  after one step, 15 MiB raised; less the start, its windows ran 2 and 3
  steps, 31 and 45 MiB raised, predicted 37 and 46). The first step's other
  one-time cost (the first records' buffers, each function's and module's
  first sight under the Python tracer: 0.2 to 0.4 MiB) is still counted as
  per step there. The stop's allocations (many small result
  objects) first fill the heap's free memory, which a CPU step's freed
  activations leave resident: half of it (mallinfo2's fordblks) is counted
  off the stop's cost (the same evaluation's window stopped after one step
  predicting 48 MiB for a second, at an expansion of 20; its one step's stop
  raised the peak by 2.2 MiB).
The step's own activations are told apart from the profiler's records by
calibration: over the steady steps before the window a thread reads the heap
every 10 ms (memory_watchdog.StepPeakSampler) and the largest rise within one
of those steps is what a window step may rise by at no cost to the stop
(a 16 x 64-token TransformerEncoder evaluation, autograd on: its first
profiled step rose by what predicted a 57 MiB stop against the window's 46,
and the window recorded nothing; abandoning it raised the peak by 1.9 MiB).
When the prediction passes the budget the window ends at once, keeping the
steps recorded so far, or, when not even one step fitted, recording nothing
(the report says why, and what to run instead: --trace-no-shapes, a larger
--trace-memory, a smaller batch). A second window (window_plan.py: the steps turned out
to be another kind) starts only if the first spent at most a quarter of the
window's share and one step of the length of the last one fits what is left,
at the cost per profiled second that the first window showed: REINFORCE's
first window profiled five 1.5 ms policy calls for 21 MiB, and its second one
episode (37 ms profiled) for 138 MiB. The stop is put off
while torch runs Python from C++ (a backward pass), and a first window's
Python-heavy first step can still pass the bound (the report then says so:
measurement.profile_memory_bound_bytes beside the rise). The watchdog's
request is a Python signal handler, which runs only between bytecodes: a step
that stays in C++ cannot be stopped inside it at all. functorch's
Lennard-Jones fit (tests/real/corpus/drivers/lennard_jones.py, 1000 points)
runs about 117,000 ops in one backward with 13 Python calls: its window's
first step was abandoned when the backward returned, at a predicted 218 to
226 MiB against the window's 48, and raised the peak by 395 MiB (329 MiB
plain, 736 under the tool). So the bound acts before such a step starts: a
backward's graph is walked before the window (autograd_watch.py), and a
window whose backward is too large for even the least the profiler keeps of
it does not start (unstoppable_step_refused). A CPU program whose
step allocates more than the window may grow (a BERT-mini evaluation, an LSTM
language model) gets no trace, and the report says why; on a GPU the
activations are device memory and the heap's growth is the profiler's.

The watchdog's signal handler never stops the window inside a trace function
(_core.in_trace_callback): it ran once inside torch's Python tracer (a __repr__
the tracer called) and the stop waited for the tracer itself, a deadlock.

Starting the profiler would import
torch._inductor (and with it sympy, ~70 MiB, and a change to the warnings
filters) only to read a cudagraph setting: the window keeps that import from
happening when the program has not made it.

With Python stacks on, the window also writes, beside the trace,
rank<R>.callsites.json: for each Python frame, the line of each call it made
(the trace names a frame by the line of its def only). Trace findings then
name the user's line of the call (time_sequence_prediction:29, the
self.linear call in the loop), not the def of the function around it.
Kineto prints "USDT: ... profiler_start" lines on stderr when a profiler starts
and stops; those calls run with stderr captured and everything else written
back, so the program's own stderr is what it would be without us.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import tempfile
import time

from fastenough.agent.memory import (
    allocated_bytes,
    heap_free_bytes,
    heap_in_use_bytes,
    peak_rss_bytes,
    return_free_heap,
    rss_bytes,
)
from fastenough.agent.quiet_warnings import ignoring_warnings
from fastenough.agent.scheduler_wait import run_delay_ns

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
        self._heap_base: int | None = None  # _host_bytes() when the window began
        self._torch = None
        self.stopped_early: str | None = None
        self.cost_ns = 0  # start, stop and export: the tool's own time
        self.steps_done = 0  # profiled steps completed
        self.abandoned_rise: int | None = None  # what abandon()'s stop raised the peak by
        # The peak-RSS rise of this process's earlier windows: the bound is for the
        # whole run, and RSS freed after a window is seldom given back (Lightning:
        # two windows of 40 and 73 MiB raised its peak by 113 MiB).
        self.spent_rise = 0
        self._stop_asked: int | None = None  # the growth the watchdog saw, until a safe point
        # What stopping costs in memory, per byte the window grew (module docstring).
        self.expansion = STOP_EXPANSION_WITH_STACK if with_stack else STOP_EXPANSION
        # At the last profiled step's end: the heap's growth since the window
        # began and the RSS above the peak before it (module docstring).
        self._heap_at_step_end = 0
        self._rss_over_at_step_end = 0
        self._first_step_end = (0, 0)  # (RSS over, heap growth) at the first step's end
        self._setup = (0, 0)  # (RSS over, heap growth) at start()'s end: the start's own cost
        # The last window's peak-RSS rise per second it profiled (the second
        # window's gate).
        self._rise_per_s: float | None = None
        self._watchdog = None  # memory_watchdog.MemoryWatchdog, while on
        self._busy = False  # inside our own profiler calls (the watchdog waits)
        # foreign_profiler.ForeignProfilerWatch: told when the profiler calls are
        # ours, so that only the program's own start makes the window stand down.
        self.guard = None
        # --trace-memory: the window's own budget in bytes (None: its share of
        # the bound).
        self.memory_budget: int | None = None
        # The steady steps before the window (module docstring, calibration):
        # their heap rise within a step, the step's own allocations.
        self._sampler = None
        self._excursions: list[int] = []
        self.step_rise: int | None = None  # the largest of them, once the window starts
        self._step_peak = 0  # the highest heap seen in the current profiled step
        self._graph_asked = False  # the autograd watch was asked to count a backward's nodes

    @property
    def active(self) -> bool:
        return self._prof is not None

    def start(self, torch, first_step: int) -> None:
        from torch.profiler import ProfilerActivity, profile, schedule

        self.done = True
        self.end_calibration()
        t0 = time.monotonic_ns()
        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_initialized():
            activities.append(ProfilerActivity.CUDA)
        # The bound counts from before the profiler starts: its start is part
        # of its cost.
        self._hwm_before = peak_rss_bytes()
        self._torch = torch
        self._base = (rss_bytes(), _device_bytes(torch))
        self._heap_base = _host_bytes()
        self._heap_at_step_end = 0
        self._rss_over_at_step_end = 0
        self._first_step_end = (0, 0)
        self._setup = (0, 0)
        self._step_peak = self._heap_base or 0
        self.steps_done = 0
        self._stop_asked = None
        # A second window (window_plan.py) replaces the first one's trace.
        self._previous = self.info if self.info and self.info.get("trace") else None
        # Not with shapes once torch.compile has compiled something: a window
        # recording shapes left every op of an aot-compiled graph ~100x slower
        # for the rest of the run (torch 2.13, seen under the agent; a compiled
        # model's matmuls are fused anyway, so shapes say little there).
        from fastenough.agent import compile_info

        shapes = self.shapes and not compile_info.dynamo_compiled()
        with ignoring_warnings(), kineto_quiet(), self._ours(), _no_lazy_inductor(torch):
            prof = profile(
                activities=activities,
                record_shapes=shapes,
                with_stack=self.with_stack,
                # A schedule makes the profiler mark each step as ProfilerStep#N.
                # One cycle only: see the module docstring.
                schedule=schedule(wait=0, warmup=0, active=self.steps, repeat=1),
            )
            prof.start()
        self._prof = prof
        self._run_delay = run_delay_ns()
        self._thread_cpu = time.thread_time_ns()
        self.info = {"trace": None, "first_step": first_step, "last_step": None,
                     "start_wall_ns": time.time_ns(), "end_wall_ns": None,
                     "with_stack": self.with_stack, "record_shapes": shapes}
        if self._base[0] is not None and self._heap_base is not None:
            from fastenough.agent.memory_watchdog import MemoryWatchdog

            watchdog = MemoryWatchdog(0, self.budget(self._base[0]), self._over_bound,
                                      measure=self.predicted_rise)
            if watchdog.start():
                self._watchdog = watchdog
        self._setup = self._set_up_so_far()
        self.cost_ns += time.monotonic_ns() - t0

    def _set_up_so_far(self) -> tuple[int, int]:
        """(RSS above the peak before the window, the heap's growth) now: at
        the end of start(), what the profiler's start itself cost (its
        buffers, its first records: the ProfilerStep range, our own calls
        under its Python tracer), which no later step costs again."""
        heap, rss = _host_bytes(), rss_bytes()
        grown = max(0, heap - self._heap_base) if heap is not None and self._heap_base else 0
        over = max(0, rss - self._hwm_before) if rss is not None and self._hwm_before else 0
        return over, grown

    def calibrate_step(self) -> None:
        """At the end of a steady step while the window waits to start: the
        rise of the heap within the step just done is what the program's own
        step allocates and frees (activations), which the window's steps
        allocate too and which the profiler does not keep. The first call
        starts the sampler; each later one records a step."""
        if self.done:
            self.end_calibration()
            return
        if not self._graph_asked:
            self._graph_asked = True
            from fastenough.agent import autograd_watch

            watch = autograd_watch.current()
            if watch is not None:
                watch.ask_graph_size()  # the next backward's nodes (unstoppable_step_refused)
        sampler = self._sampler
        if sampler is None:
            from fastenough.agent.memory_watchdog import StepPeakSampler

            sampler = StepPeakSampler(_host_bytes)
            if sampler.start():
                self._sampler = sampler
            return
        rise = sampler.mark()
        if rise is not None:
            self._excursions = [*self._excursions[-(CALIBRATION_STEPS - 1):], rise]

    def end_calibration(self) -> None:
        """The window starts (or will not): the sampler stops, and the steps it
        saw give the step's own rise (None when it saw no whole step)."""
        sampler, self._sampler = self._sampler, None
        if sampler is not None:
            sampler.stop()
        if self._excursions:
            self.step_rise = max(self._excursions)
        self._excursions = []

    @staticmethod
    def bound_of(base: int) -> int:
        return int(max(MEMORY_BOUND_BYTES, MEMORY_BOUND_SHARE * base))

    def budget(self, base: int) -> int:
        """How much this window may raise the peak RSS: its share of the bound,
        less what earlier windows spent; --trace-memory sets the share."""
        share = self.memory_budget if self.memory_budget is not None \
            else WINDOW_SHARE * self.bound_of(base)
        return int(max(0, share - self.spent_rise))

    def growth_allowed(self, base: int) -> int:
        """How far the heap may grow at the current expansion before the stop
        that follows would pass the budget."""
        return int(self.budget(base) / (1 + self.expansion))

    def unstoppable_step_refused(self, base: int | None) -> str | None:
        """Why the window must not start (None: it may): one backward of the
        program, as walked before the window (autograd_watch.py), has so many
        nodes that even the least torch's profiler keeps of it passes the
        window's budget, and a backward runs in C++, where the watchdog cannot
        stop the window (its request waits for the backward to return).
        functorch's Lennard-Jones fit with 1000 points: a backward of 16,128
        nodes; its window's first step was abandoned when that backward
        returned, and raised the peak RSS by 393 MiB (336 MiB plain, 749 MiB
        under the tool), against a bound of 64. The least is GRAPH_OPS_PER_NODE
        ops a node at RECORD_BYTES_PER_OP each and a stack-free stop's
        expansion (4.7 KiB a node: the Lennard-Jones fit with 100 points spent
        about 32 KiB a node, 54 MiB for 1,728); its Python stacks and shapes
        are what a step costs beyond it."""
        from fastenough.agent import autograd_watch

        watch = autograd_watch.current()
        nodes = watch.graph_nodes if watch is not None else None
        if not nodes or base is None:
            return None
        budget = self.budget(base)
        records = nodes * GRAPH_OPS_PER_NODE * RECORD_BYTES_PER_OP
        least = records * (1 + STOP_EXPANSION)
        if least <= budget:
            return None
        # (self.expansion starts at STOP_EXPANSION or above and is only raised)
        likely = records * (1 + self.expansion)
        more = "or more " if nodes >= autograd_watch.MAX_GRAPH_WALK else ""
        need = likely * 3 // 2
        return (f"the profiler window was skipped: one backward of this program runs "
                f"{nodes:,} {more}autograd nodes inside torch's C++, where the window cannot "
                f"be stopped, and recording it would raise the peak RSS by at least about "
                f"{int(least) >> 20} MiB (likely {int(likely) >> 20}), past the window's "
                f"{budget >> 20} MiB of fastenough's memory bound of "
                f"{self.bound_of(base) >> 20} MiB; for a trace, run again with --trace-memory "
                f"{max(1, -(-int(need) >> 20))} (MiB the window may raise the peak RSS by), "
                "or on a smaller input")

    def second_window_refused(self, step_ns: int | None) -> str | None:
        """Why a second window may not start (None: it may): earlier windows
        left no budget, or one step as long as the last one would cost more
        than is left, at the first window's cost per profiled second."""
        rss = rss_bytes()
        if self.spent_rise <= 0 or rss is None:
            return None
        left = self.budget(rss)
        if self.growth_allowed(rss) < (1 << 20):
            return "the earlier window used fastenough's memory bound"
        if self.spent_rise > SECOND_WINDOW_AFTER * (left + self.spent_rise):
            return (f"the earlier window raised the peak RSS by {self.spent_rise >> 20} MiB, "
                    f"more than a quarter of the window's share of fastenough's memory "
                    f"bound, and steps of another kind may cost several times as much")
        if self._rise_per_s is not None and step_ns:
            cost = self._rise_per_s * step_ns / 1e9
            if cost > left:
                return (f"one step as long as the last ({step_ns / 1e6:.0f} ms) would cost "
                        f"about {int(cost) >> 20} MiB of memory at the earlier window's rate, "
                        f"more than the {left >> 20} MiB left of fastenough's memory bound")
        return None

    def predicted_rise(self) -> int | None:
        """What the window would raise the peak RSS by if it stopped now (module
        docstring): the RSS above the peak before the window plus the stop's
        cost: the heap's growth at the last step's end at the full expansion,
        and its growth within this step beyond what a step before the window
        rose by (the step's own activations: calibrate_step) at a stack-free
        window's. Without that calibration, the larger of the first and the
        whole growth (the step's own activations too) at a stack-free
        window's."""
        heap, rss = _host_bytes(), rss_bytes()
        if heap is None or rss is None or self._heap_base is None:
            return None
        self._step_peak = max(self._step_peak, heap)
        over = max(0, rss - (self._hwm_before or rss))
        recorded = self._heap_at_step_end
        if self.step_rise is not None:
            in_step = max(0, heap - self._heap_base - recorded - self.step_rise)
            cost = self.expansion * recorded + STOP_EXPANSION * in_step
        else:
            grown = max(recorded, heap - self._heap_base)
            cost = max(self.expansion * recorded, STOP_EXPANSION * grown)
        return int(over + max(0, cost - self._free_credit()))

    @staticmethod
    def _free_credit() -> float:
        """The part of the heap's free memory the stop's allocations are
        counted to fill before the RSS grows (module docstring)."""
        return FREE_CREDIT * (_free_bytes() or 0)

    def _grew_text(self, rise: int) -> str:
        return (f"host memory grew: stopping would raise the peak RSS by about {rise >> 20} "
                f"MiB, the window's share of fastenough's memory bound being "
                f"{self.budget(self._base[0] or 0) >> 20} MiB; {self.advice(rise)}")

    def advice(self, rise: int | None = None) -> str:
        """What a user can do about a window cut short by the memory bound:
        only options `fastenough run` has."""
        ways = []
        if (self.info or {}).get("record_shapes"):
            ways.append("--trace-no-shapes (torch's profiler then holds no tensors)")
        budget = self.budget(self._base[0] or 0) + self.spent_rise
        need = max(budget, int(rise or 0)) * 3 // 2
        ways.append(f"--trace-memory {max(1, -(-need >> 20))} (MiB the window may raise the "
                    "peak RSS by)")
        return ("for a whole window, run again with " + ", or ".join(ways)
                + ", or with a smaller batch")

    def _note_step_end(self) -> None:
        heap, rss = _host_bytes(), rss_bytes()
        if heap is not None and self._heap_base is not None:
            self._heap_at_step_end = max(0, heap - self._heap_base)
            # What the step freed by its end, from the highest heap the watchdog
            # saw in it: its own allocations, which the next step's may reach.
            if self.step_rise is not None:
                self.step_rise = max(self.step_rise, self._step_peak - heap)
            self._step_peak = heap
        if rss is not None and self._hwm_before:
            self._rss_over_at_step_end = max(0, rss - self._hwm_before)
        if self.steps_done == 0:  # the first step's end, whichever path saw it
            self._first_step_end = (self._rss_over_at_step_end, self._heap_at_step_end)

    def _learn_expansion(self, before: tuple) -> None:
        """After a stop: its peak over the RSS it started from, per byte the
        window had grown. Only ever raised: the next window is no less careful."""
        rss_before, hwm_before, heap_before = before
        hwm_after = peak_rss_bytes()
        base = self._heap_base
        if None in (rss_before, hwm_before, heap_before, hwm_after, base) \
                or hwm_after <= hwm_before:
            return  # the stop fitted under an earlier peak: nothing to learn
        grew = heap_before - base
        if grew >= 1 << 20:
            self.expansion = max(self.expansion, (hwm_after - rss_before) / grew)

    def _over_bound(self, grew: int, frame=None) -> None:
        """The watchdog's call, on the main thread between two bytecodes of
        whatever ran. The window stops here unless those bytecodes run inside a
        trace function (stopping there once deadlocked the program: a __repr__
        that torch's Python tracer called from its profile function, and the
        stop waited for that very tracer; word_lm.py, LSTM) or inside a torch
        callback; then the stop waits for the watchdog's next call (10 ms) or a
        safe point (a call of the main model, a step's end), whichever is first."""
        if self._prof is None:
            return
        self._stop_asked = grew
        from fastenough import _core

        if not _core.in_trace_callback():
            self.safe_point(frame)

    def safe_point(self, frame=None) -> None:
        """A stop the watchdog asked for happens here, unless torch is calling
        back into Python (a backward pass, a mode's handler)."""
        grew = self._stop_asked
        if grew is None or self._busy or self._prof is None:
            return
        if _inside_a_callback(self._torch, frame):
            return
        self._stop_asked = None
        self.stopped_early = self._grew_text(grew)
        if self.steps_done == 0:
            budget = self.budget(self._base[0] or 0)
            self.abandon()
            self.info.update({"trace": None, "skipped": (
                "the profiler window recorded nothing: within its first step the process "
                "grew so that stopping torch's profiler would raise the peak RSS by about "
                f"{grew >> 20} MiB, past the window's {budget >> 20} MiB of "
                f"fastenough's memory bound of {self.bound_of(self._base[0] or 0) >> 20} MiB; "
                f"{self.advice(grew)}"),
                "stopped_early": self.stopped_early,
                "peak_rss_rise_bytes": self.abandoned_rise,
                "memory_bound_bytes": self.bound_of(self._base[0] or 0)})
            return
        self.stop(self.info["first_step"] + self.steps_done - 1)

    def step(self) -> None:
        if self._prof is not None:
            t0 = time.monotonic_ns()
            with self._step_end():
                self._note_step_end()
                self.steps_done += 1
            with ignoring_warnings(), kineto_quiet(), self._ours():
                self._prof.step()
            self.cost_ns += time.monotonic_ns() - t0

    @contextlib.contextmanager
    def _step_end(self):
        """A profiled step's end, while it is being counted: the watchdog's
        stop waits (safe_point), and the step's end decides (over_memory_bound)
        or the next safe point stops. _note_step_end() raises the prediction to
        the step's full records; the watchdog's thread saw that, asked, and its
        handler ran before steps_done counted the step: the window was abandoned
        as "recorded nothing within its first step" with the step whole
        (functorch's Lennard-Jones fit, one run in two: a 54.8 MiB rise for
        no trace, against 56.9 MiB for one step's trace in the other)."""
        busy, self._busy = self._busy, True
        try:
            yield
        finally:
            self._busy = busy

    def stop(self, last_step: int | None) -> None:
        self._stop_watchdog()
        self._stop_asked = None  # (asked while the step's end decided: done now)
        prof, self._prof = self._prof, None
        if prof is None:
            return
        t0 = time.monotonic_ns()
        end_wall = time.time_ns()
        # (the window's steps: before its stop and export)
        end_delay, end_cpu = run_delay_ns(), time.thread_time_ns()
        before = (rss_bytes(), peak_rss_bytes(), _host_bytes())
        with ignoring_warnings(), kineto_quiet(), self._ours():
            prof.stop()
        previous = getattr(self, "_previous", None)
        if previous is not None:
            self._forget(previous["trace"])
        rel = self._export(prof)
        if previous is not None:
            self.info["superseded"] = {k: previous.get(k) for k in
                                       ("mode", "first_step", "last_step")}
            self._previous = None
        if self.with_stack:
            # (the trace stands without its call lines when they cannot be written)
            with contextlib.suppress(Exception):
                self._write_callsites(prof, rel)
        # The agent's own memory: how much the window raised the process's peak
        # RSS (an upper bound: the program's own growth in those steps counts too).
        self._learn_expansion(before)
        rise = self._note_rise()
        seconds = (end_wall - self.info["start_wall_ns"]) / 1e9
        if rise is not None and seconds > 0:
            self._rise_per_s = max(self._rise_per_s or 0.0, max(0, rise) / seconds)
        self.info.update({"trace": rel, "last_step": last_step, "end_wall_ns": end_wall,
                          "peak_rss_rise_bytes": rise, "stopped_early": self.stopped_early,
                          "memory_bound_bytes": self.bound_of(self._base[0] or 0)})
        self.info["rss_released_bytes"] = _release(prof)
        # The main thread's time on a core and its wait for one over the window's
        # steps (scheduler_wait.py): more work, or less of the machine.
        self.info["thread_cpu_ns"] = end_cpu - self._thread_cpu
        self.info["run_delay_ns"] = (end_delay - self._run_delay if end_delay is not None
                                     and self._run_delay is not None else None)
        self.cost_ns += time.monotonic_ns() - t0

    def _note_rise(self) -> int | None:
        """How much this window raised the peak RSS (None: unknown), counted
        against the bound that later windows share."""
        after = peak_rss_bytes()
        rise = after - self._hwm_before if after is not None and self._hwm_before else None
        self.spent_rise += max(0, rise or 0)
        return rise

    def _stop_watchdog(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.stop()

    def abandon(self) -> None:
        """After an internal error: stop without writing anything."""
        self._stop_watchdog()
        prof, self._prof = self._prof, None
        if prof is not None:
            before = (rss_bytes(), peak_rss_bytes(), _host_bytes())
            with contextlib.suppress(Exception), ignoring_warnings(), kineto_quiet(), \
                    self._ours():
                prof.stop()
            self._learn_expansion(before)
            self.abandoned_rise = self._note_rise()
            _release(prof)

    @contextlib.contextmanager
    def _ours(self):
        guard = self.guard
        self._busy = True
        if guard is not None:
            guard.ours = True
        try:
            yield
        finally:
            self._busy = False
            if guard is not None:
                guard.ours = False

    def _write_callsites(self, prof, trace_rel: str) -> None:
        """rank<R>.callsites.json beside the trace: for each Python frame of the
        trace (named by its def line, "train.py(18): forward"), the line of each
        call it made: [[frame name, callee name, call line, calls], ...]. From
        the profiler's own event tree, whose Python calls carry their caller's
        line; frames of torch itself are left out (no finding names them)."""
        counts: dict[tuple, int] = {}
        stack = list(prof.profiler.kineto_results.experimental_event_tree())
        while stack:
            e = stack.pop()
            stack.extend(e.children)
            fields = e.extra_fields
            caller = getattr(fields, "caller", None)
            parent = e.parent
            if caller is None or parent is None:
                continue
            name = parent.name
            if name.startswith(("torch/", "<")):
                continue
            key = (name, e.name, int(caller.line_number))
            counts[key] = counts.get(key, 0) + 1
        path = self.run_dir.file(trace_rel.replace(".pt.trace.json.gz", ".callsites.json"))
        doc = {"schema": "fastenough.callsites/1", "trace": os.path.basename(trace_rel),
               "calls": [[p, c, line, n] for (p, c, line), n in sorted(counts.items())]}
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, path)

    def over_memory_bound(self) -> bool:
        """At a profiled step's end: True when stopping now, or after one more
        step like those done, would raise the peak past the window's budget
        (module docstring; the profiler holds its steps' tensors and records),
        or the device's memory grew past the bound. Also true once the
        watchdog has asked for a stop: a step's end is a safe point."""
        if self._stop_asked is not None:
            self.stopped_early = self._grew_text(self._stop_asked)
            self._stop_asked = None
            return True
        with self._step_end():
            return self._over_budget_at_step_end()

    def _over_budget_at_step_end(self) -> bool:
        self._note_step_end()
        budget = self.budget(self._base[0] or 0)
        now = self.predicted_rise()
        if now is not None:
            done = self.steps_done + 1
            over, recorded = self._rss_over_at_step_end, self._heap_at_step_end
            # One more step like those after the first: the first also holds the
            # profiler's one-time set-up (a DDP loop's records: 0.92 MiB in the
            # first step, 0.1 to 0.4 MiB in each later one).
            first_over, first_recorded = self._first_step_end
            # After the first step alone, that step less what start() cost.
            more = ((over - first_over) / (done - 1), (recorded - first_recorded) / (done - 1)) \
                if done > 1 else (max(0, over - self._setup[0]), max(0, recorded - self._setup[1]))
            after_next = over + more[0] + max(
                0, self.expansion * (recorded + more[1]) - self._free_credit())
            if now > budget or after_next > budget:
                when, rise = ("now", now) if now > budget else ("after one more step",
                                                                 after_next)
                self.stopped_early = (
                    f"host memory grew: stopping {when} would raise the peak RSS by about "
                    f"{int(rise) >> 20} MiB, past the window's share of fastenough's memory "
                    f"bound ({budget >> 20} MiB); {self.advice(int(rise))}")
                return True
        device, base = _device_bytes(self._torch), self._base[1]
        if base is not None and device is not None and device - base > self.bound_of(base):
            self.stopped_early = f"device memory grew by {(device - base) >> 20} MiB"
            return True
        return False

    def _forget(self, trace_rel: str) -> None:
        """Remove an earlier window's trace and its call lines."""
        for rel in (trace_rel, trace_rel.replace(".pt.trace.json.gz", ".callsites.json")):
            with contextlib.suppress(OSError):
                os.remove(self.run_dir.file(rel))

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


def _release(prof) -> int | None:
    """The stopped profiler's records go now, and the heap they held goes back
    to the system; returns by how much the RSS fell (None: unknown).

    torch's profile object is in a reference cycle (its action map holds its
    own bound methods), so dropping it left its results (every event, shapes,
    Python stacks) alive until a full cyclic collection, while the program's
    later allocations went above them; when they were freed, glibc kept the
    pages. word-lm (Transformer, two windows): RSS ended 126 MiB over plain,
    137 MiB of it free heap that malloc_trim gave back (issue 37, item 7)."""
    before = rss_bytes()
    with contextlib.suppress(Exception):
        inner = getattr(prof, "profiler", None)
        if inner is not None:
            for attr in ("kineto_results", "_function_events", "_old_function_events"):
                if hasattr(inner, attr):
                    setattr(inner, attr, None)
            prof.profiler = None
    if not return_free_heap():
        return None
    after = rss_bytes()
    return max(0, before - after) if before is not None and after is not None else None


MEMORY_BOUND_BYTES = 64 << 20
MEMORY_BOUND_SHARE = 0.05
# The stop's peak per byte of the window's heap growth, before a stop is seen.
STOP_EXPANSION = 3.0
# With Python stacks: REINFORCE's and Lightning's stops cost 19 and 20 times
# the window's heap growth (every Python call of a Python-heavy step is a record).
STOP_EXPANSION_WITH_STACK = 20.0
# The share of the heap's free bytes (mallinfo2's fordblks: touched memory a
# step's activations left) counted against the stop's cost: the stop's result
# objects are small allocations that fill freed chunks first, but not every
# free chunk fits them.
FREE_CREDIT = 0.5
# The window's share of the memory bound; the rest is the agent's own.
WINDOW_SHARE = 0.75
# The least torch's profiler keeps of one backward node (unstoppable_step_refused):
# ops a node runs (the Lennard-Jones fit: 13,643 ops in a step of 1,728 nodes,
# 7.9 a node, the forward's included) and bytes an op's record holds in the
# heap before the stop (the same step: 7 MiB for 19,123 events, 385 bytes).
GRAPH_OPS_PER_NODE = 4
RECORD_BYTES_PER_OP = 300
# Steady steps before the window whose heap rise within the step calibrates
# the window's prediction (the last ones, the largest counts).
CALIBRATION_STEPS = 3
# A second window only after a first that spent at most this share of the
# window's: its steps are of another kind, whose cost the first one predicts
# poorly (REINFORCE: five 1.5 ms policy calls cost 21 MiB, then one episode,
# 37 ms profiled, 138 MiB).
SECOND_WINDOW_AFTER = 0.25


def _inside_a_callback(torch, frame=None) -> bool:
    """True while torch may run Python from inside its C++: a backward pass (its
    hooks, a Python autograd Function) or a dispatch or function mode's handler
    (any mode installed: a handler runs with its mode popped).
    Stopping the profiler there left it half stopped (REINFORCE: torch warned
    "PythonDispatchMode" from collection.cpp on the program's stderr, and its
    records kept growing)."""
    with contextlib.suppress(Exception):
        if torch._C._current_graph_task_id() != -1:
            return True
        # A mode on the stack (the logits check's, whose handler is native and
        # has no Python frame): the op it wraps may be running.
        if torch._C._len_torch_dispatch_stack() or torch._C._len_torch_function_stack():
            return True
    from fastenough.agent.checks import logits

    if logits.MODE_INSTALLED:
        return True
    depth = 0
    while frame is not None and depth < 200:
        if frame.f_code.co_name in ("__torch_dispatch__", "__torch_function__"):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _free_bytes() -> int | None:
    return heap_free_bytes()


def _host_bytes() -> int | None:
    """The window's measure of host memory: the heap in use, else the RSS."""
    heap = heap_in_use_bytes()
    return heap if heap is not None else rss_bytes()


@contextlib.contextmanager
def _no_lazy_inductor(torch):
    """torch.profiler's start reads hasattr(torch, "_inductor"), which imports
    torch._inductor through torch's module __getattr__ when the program never
    did (~70 MiB, sympy, a change to the warnings filters). For the duration
    of our start, that one lazy import reads as absent; the program's own
    accesses (none can run meanwhile on this thread) are not affected."""
    import sys

    getattr_ = torch.__dict__.get("__getattr__")
    if "torch._inductor" in sys.modules or getattr_ is None:
        yield
        return

    def lazy(name):
        if name == "_inductor":
            raise AttributeError(name)
        return getattr_(name)

    torch.__getattr__ = lazy
    try:
        yield
    finally:
        if torch.__dict__.get("__getattr__") is lazy:
            torch.__getattr__ = getattr_


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
