"""The automatic phases of one process, and the program's own (fastenough.phase).

  startup -> warmup -> steady -> profile -> steady -> ... -> tail

per mode: a program that trains and evaluates goes warmup/steady in "train",
then warmup/steady in "eval" (steady again at once if that mode was steady
before), and so on. Transitions happen only at step boundaries. Each edge is one
line of phases.jsonl: {"rank","pid","phase","mode","edge","mono_ns","wall_ns",
"synced","auto"} and, on "end", the memory then. Live edges wait for the device
first; an edge known only afterwards (`at`, e.g. the end of the last step) is
not synced. The time the loop stands still for a transition (device wait,
census, profiler start/stop) is counted in pause_ns, the tool's own cost, and
is never part of a step.
"""

from __future__ import annotations

import time

from fastenough.agent import memory
from fastenough.agent.run_dir_writer import dumps


def now() -> tuple[int, int]:
    return time.monotonic_ns(), time.time_ns()


class PhaseMachine:
    def __init__(self, agent, opts: dict) -> None:
        self.agent = agent  # the facade: torch, steps, checks, profile window
        self.phase: str | None = None  # the automatic phase now open
        self.mode = "train"  # of the open phase
        self.steps = 0  # steps closed in the open phase
        # Step times in warmup, per mode, to see them settle. Kept across mode
        # switches: a loop that alternates one training step and one
        # evaluation forward (PyG's GCN) settles each mode on its own steps.
        self._warm: dict[str, list[int]] = {}
        self.durations: list[int] = []
        self.steady_modes: set[str] = set()  # modes that reached steady
        self.last_edge: tuple[int, int] | None = None
        self.switching_mode = False  # inside enter_mode (edges of a mode switch)
        self.last_steady_ns: int | None = None  # the last steady step's duration
        self._steady_steps: dict[str, int] = {}  # steady steps per mode, all its phases
        self.pause_ns = 0
        self.pauses = 0
        self._warmup_steps = max(3, int(opts.get("warmup_steps", 3)))
        self._warmup_max = int(opts.get("warmup_max", 20))
        self._trace_after = int(opts.get("trace_after", 2))
        self._trace_steps = max(1, int(opts.get("trace_steps", 5)))

    # ------------------------------------------------------------------ edges
    def write_edge(self, phase, edge, *, at=None, auto=True) -> tuple[int, int]:
        agent = self.agent
        if at is None:
            synced = memory.sync(agent.torch)
            mono, wall = now()
        else:
            synced = False
            mono, wall = at
        line = {"rank": agent.rank_or_0, "pid": agent.pid, "phase": phase, "mode": self.mode,
                "edge": edge, "mono_ns": mono, "wall_ns": wall, "synced": synced, "auto": auto}
        if edge == "end":
            line["memory"] = memory.snapshot(agent.torch)
        elif auto:
            memory.reset_peaks(agent.torch)
        agent.steps.flush()
        agent.dir.append_lines("phases.jsonl", [dumps(line)])
        if auto:
            self.last_edge = (mono, wall)
        agent.on_edge(phase, edge, auto)
        return mono, wall

    def begin_startup(self, at) -> None:
        self.phase = "startup"
        self.write_edge("startup", "begin", at=at)

    def switch(self, new: str, mode: str | None = None) -> tuple[int, int]:
        """End the open phase, begin `new` (in `mode`); returns when the loop goes on."""
        t0 = time.monotonic_ns()
        self.write_edge(self.phase, "end")
        self.phase = new
        if mode is not None:
            self.mode = mode
        self.steps = 0
        if new == "warmup":
            self.durations = self._warm.setdefault(self.mode, [])
        if new == "steady":
            self.steady_modes.add(self.mode)
        t = self.write_edge(new, "begin")
        if new == "steady":
            self.agent.window_plan.on_steady_begin()
        self.pause_ns += time.monotonic_ns() - t0
        self.pauses += 1
        return t

    def end_startup_at(self, start) -> None:
        """The first step began at `start`, known only now (end-type sources)."""
        self.write_edge("startup", "end", at=start)
        self.phase = "warmup"
        self.steps = 0
        self.durations = self._warm.setdefault(self.mode, [])
        self.write_edge("warmup", "begin", at=start)

    def enter_mode(self, mode: str) -> tuple[int, int]:
        """The program switched between training and evaluation at a step boundary.
        A mode whose own warm-up steps have settled meanwhile (steps that each
        ended at a switch: one per stretch of an alternating loop) is steady.
        A profiler window that is on goes on in the new mode until it has its
        steps: in a loop that alternates every step it covers both modes."""
        agent = self.agent
        warm = self._warm.get(mode, [])
        if mode not in self.steady_modes and warm and self._settled(warm):
            self.steady_modes.add(mode)
        agent.window_plan.on_mode_entered(mode)
        window = agent.window
        self.switching_mode = True
        try:
            if window.active:
                if window.steps_done < self._trace_steps and not window.over_memory_bound():
                    return self.switch("profile", mode)
                window.stop(agent.steps.index - 1)
            t = self.switch("steady" if mode in self.steady_modes else "warmup", mode)
            if self.phase == "steady" and agent.window_pending \
                    and self._steady_steps.get(mode, 0) >= self._trace_after:
                t = agent.start_window()
            return t
        finally:
            self.switching_mode = False

    def note_last_step(self, duration: int) -> None:
        """A step that ended at a mode switch: no phase change follows it here,
        but in warm-up it counts toward its mode settling, in steady toward the
        window's start, and in the window it is one of its steps."""
        self.steps += 1
        if self.phase == "warmup":
            self.durations.append(duration)
        elif self.phase == "steady":
            self.last_steady_ns = duration
            self._steady_steps[self.mode] = self._steady_steps.get(self.mode, 0) + 1
        elif self.phase == "profile":
            self.agent.window.step()

    # ------------------------------------------------------------------ steps
    @property
    def quiet(self) -> bool:
        """Steady, and no phase change can follow a step (the window done or off)."""
        return self.phase == "steady" and not self.agent.window_pending

    def after_step(self, duration: int, t: tuple[int, int]) -> tuple[int, int]:
        """Phase transitions happen only at step boundaries; returns where the next
        step starts (after the pause of a transition)."""
        self.steps += 1
        phase = self.phase
        agent = self.agent
        if phase == "warmup":
            self.durations.append(duration)
            if agent.window_pending:
                agent.window.calibrate_step()  # the window's memory prediction
            if self._settled(self.durations):
                t = self.switch("steady")
                if agent.window_pending and self._trace_after <= 0:
                    t = agent.start_window()
        elif phase == "steady":
            self.last_steady_ns = duration  # a second window's memory gate
            # Counted per mode across its steady phases (an alternating loop has
            # one step in each).
            n = self._steady_steps[self.mode] = self._steady_steps.get(self.mode, 0) + 1
            if agent.window_pending:
                agent.window.calibrate_step()  # the window's memory prediction
                if n >= self._trace_after:
                    t = agent.start_window()
        elif phase == "profile":
            # (not active: the window stood down for the program's own profiler)
            if agent.window.steps_done + 1 >= self._trace_steps or not agent.window.active \
                    or agent.window.over_memory_bound():
                t = agent.stop_window()
            else:
                agent.window.step()
        return t

    def restart_warmup(self) -> None:
        """The mode's steps are measured anew (another step source took over):
        its warm-up history no longer describes them."""
        self.durations.clear()

    def _settled(self, durations: list[int]) -> bool:
        n = len(durations)
        if n >= self._warmup_max:
            return True
        if n < self._warmup_steps:
            return False
        last = sorted(durations[-3:])
        median = last[1]
        if all(abs(d - median) <= 0.2 * median for d in last):
            return True
        # Noisy but flat: on a shared machine single steps jitter by more than
        # 20%, yet warm-up effects (allocator growth, autotuning, lazy init)
        # show up as a trend. No trend between the last two triples = settled.
        if n >= 6:
            before = sorted(durations[-6:-3])[1]
            return abs(median - before) <= 0.15 * before
        return False

    # ------------------------------------------------------------------ exit
    def finish(self, last_step_end) -> None:
        """At exit: close the open phase; the tail begins where the last step ended."""
        agent = self.agent
        if agent.window.active:
            agent.window.stop(agent.steps.index - 1)
            self.write_edge("profile", "end")
            self.phase = "tail"
            self.write_edge("tail", "begin")
        elif self.phase == "startup" or last_step_end is None:
            self.write_edge(self.phase, "end")
            self.phase = None
            return
        else:
            # The last step is only known at exit: its end is where tail began (unless
            # the current phase began after it, at that step's boundary).
            at = max(last_step_end, self.last_edge or last_step_end)
            self.write_edge(self.phase, "end", at=at)
            self.phase = "tail"
            self.write_edge("tail", "begin", at=at)
        self.write_edge("tail", "end")
        self.phase = None
