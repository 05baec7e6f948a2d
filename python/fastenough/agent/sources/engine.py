"""Step boundaries: what the step sources report becomes steps.

Two kinds of source. Boundary sources (model calls, DataLoader batches) say where
a step begins: each event closes the open step and opens the next. End sources
(optimizer steps, fastenough.step()) say where a step ends: it began where the
previous one ended. Per mode ("train", "eval"), the highest source seen wins:
model calls < DataLoader batches < optimizer steps < explicit steps, so a
program that trains with an optimizer and evaluates over a DataLoader gets
both its train and its eval steps. A mode switch (model.train()/.eval(), or a
model call under another grad mode) closes the open step and starts the other
mode's phases; no step spans the switch.

While a native recorder defers (step_hook.py), its records are replayed here
(drain) before anything else looks at steps.
"""

from __future__ import annotations

from fastenough.agent.phases import now
from fastenough.agent.steps import SOURCES, SRC_DATALOADER, SRC_MODULE, SRC_OPTIMIZER


class StepEngine:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.mode = "train"
        self.source = {"train": -1, "eval": -1}
        self.open_step: tuple | None = None  # (mono, wall, items, tokens) of a step begun
        self.last_boundary: tuple[int, int] | None = None
        self.first_activity: tuple[int, int] | None = None
        self.mode_first: tuple[int, int] | None = None  # first activity in this mode
        self.mode_steps = 0  # steps recorded since the last mode switch
        self.switches = 0

    @property
    def current(self) -> int:
        """The step source of the current mode (-1: none seen yet)."""
        return self.source[self.mode]

    # ------------------------------------------------------------------ sources
    def accept(self, source: int, t: tuple[int, int]) -> bool:
        """An event of `source` at t: True when it makes steps (it is, or outranks,
        the current mode's source)."""
        if self.first_activity is None:
            self.first_activity = t
        if self.mode_first is None:
            self.mode_first = t
        current = self.source[self.mode]
        if source < current:
            return False  # (a DataLoader batch in an optimizer loop: nothing to do)
        agent = self.agent
        if agent.any_recorder():
            self.drain()  # deferred steps first, before this source changes anything
        if source == current:
            return True
        # A higher-priority source appears: it takes over from here.
        steps = agent.steps
        if self.open_step is not None:
            self.last_boundary = self.open_step[:2]
            self.open_step = None
        elif steps.last_end is not None and self.mode_steps > 0:
            self.last_boundary = steps.last_end
            last_start = steps.last_start
            if source >= SRC_OPTIMIZER and last_start is not None and steps.take_back_last():
                # The lower source closed a step in this same iteration (optimizer.step()
                # just before fastenough.step(), say): take it back, or the new source's
                # first step would be a sliver. Only while it is still in memory.
                self.last_boundary = last_start
                self.mode_steps -= 1
                agent.phases.steps = max(0, agent.phases.steps - 1)
        self.source[self.mode] = source
        agent.phases.restart_warmup()
        agent.on_source_change(source)
        agent.window_plan.on_source_upgrade(self.mode, SOURCES[source])
        return True

    def open(self, t: tuple[int, int], items=None, tokens=None) -> None:
        if self.agent.phases.phase == "startup":
            t = self.agent.phases.switch("warmup", self.mode)
        self.open_step = (t[0], t[1], items, tokens)

    def close_open(self, t: tuple[int, int]) -> tuple[int, int]:
        """Close the open step at t; returns where the next step starts."""
        if self.open_step is None:
            return t
        start = self.open_step
        self.open_step = None
        return self.record(start[:2], t, start[2], start[3])

    def end_step(self, source: int, items, tokens) -> None:
        """An end source's event: the step began where the previous one ended; the
        first (of a mode) at the first DataLoader batch or model call seen, else
        when torch was imported, known only now, so startup's end is written late."""
        t = now()
        earlier = self.mode_first  # accept() sets it to t on the first event
        if not self.accept(source, t):
            return
        agent = self.agent
        start = self.last_boundary or earlier or agent.activated or t
        if agent.phases.phase == "startup":
            agent.phases.mode = self.mode
            agent.phases.end_startup_at(start)
        self.last_boundary = self.record(start, t, items, tokens)
        if source == SRC_OPTIMIZER:
            agent.optimizer.update_deferral()

    def record(self, start, end, items, tokens, last=False) -> tuple[int, int]:
        agent = self.agent
        agent.check_fail("step")
        phases = agent.phases
        agent.steps.record(start, end, items, tokens, self.current, phases.phase, self.mode)
        self.mode_steps += 1
        if phases.phase == "steady":
            agent.window_plan.add_steady(self.mode, end[0] - start[0])
        agent.timer.step(self.mode, phases.phase, end[0] - start[0], start[0], end[0])
        agent.checks_step(end[0] - start[0], items, end[0], self.mode)
        if last:
            phases.note_last_step(end[0] - start[0])
            after = end
        elif phases.quiet:
            after = end  # the usual steady step: no phase change can follow
        else:
            after = phases.after_step(end[0] - start[0], end)
        agent.own.on_steps(1, end[0] - start[0])  # last: it may switch the agent off
        return after

    # ------------------------------------------------------------------ modes
    def fall_back(self, source: int) -> None:
        """The current source stopped making steps (no optimizer step in a loop of
        forwards): the lower source takes over from its next event."""
        self.drain()
        self.source[self.mode] = source
        self.open_step = None
        self.last_boundary = None
        self.agent.phases.restart_warmup()
        self.agent.on_source_change(source)

    def switch_mode(self, mode: str, end_at: tuple[int, int], first=None) -> None:
        """The program went from training to evaluation or back at end_at: the
        open step ends there, and the other mode's phases begin."""
        if mode == self.mode:
            return
        self.drain()
        agent = self.agent
        if self.open_step is not None:
            start, self.open_step = self.open_step, None
            if end_at[0] > start[0]:
                self.record(start[:2], end_at, start[2], start[3], last=True)
        self.mode = mode
        self.last_boundary = None
        self.mode_first = first
        self.mode_steps = 0
        self.switches += 1
        phases = agent.phases
        if phases.phase == "startup":
            phases.mode = mode  # the first steps come in this mode
        elif phases.phase is not None:
            phases.enter_mode(mode)
        agent.on_mode_change(mode)

    # ------------------------------------------------------------------ deferred
    def drain(self) -> None:
        """Replay the steps the current source's native recorder deferred, in
        order, with the effect a live call has. While deferring model calls there
        is no post-hook, so the end of the last model call is not known: a step
        still open at exit then ends at the last live call's return, or is
        dropped (see Agent.finish)."""
        agent = self.agent
        source = self.current
        hook = agent.recorder_of(source)
        if hook is None or not hook.pending:
            return
        records = hook.drain()
        if source == SRC_OPTIMIZER:  # a record is where a step ended
            for mono, wall, items, tokens in records:
                start = self.last_boundary or (mono, wall)
                self.last_boundary = self.record(start, (mono, wall), items, tokens)
            return
        if self.open_step is None or not agent.phases.quiet:
            for mono, wall, items, tokens in records:  # the general path
                t = self.close_open((mono, wall))
                self.open(t, items, tokens)
            return
        # Steady, no phase change possible: each record closes the open step and
        # opens the next, in one loop.
        agent.timer.discard()
        self.open_step, durations = agent.steps.replay(
            self.open_step, records, source, agent.phases.phase, self.mode)
        self.mode_steps += len(durations)
        agent.window_plan.add_steady(self.mode, sum(durations))
        agent.checks_steps(durations)
        agent.own.on_steps(len(durations), sum(durations))

    # ------------------------------------------------------------------ DataLoader
    def dataloader_batch_begins(self) -> None:
        t = now()
        if not self.accept(SRC_DATALOADER, t):
            return
        self.agent.check_fail("dataloader")
        t = self.close_open(t)
        self.open(t)
        self.agent.dataloader.update_deferral()

    def dataloader_batch(self, items, tokens) -> None:
        if self.current != SRC_DATALOADER or self.open_step is None:
            return
        s = self.open_step
        self.open_step = (s[0], s[1], items, tokens)

    def dataloader_exhausted(self) -> None:
        # The step that used the last batch ended when this __next__ was called
        # (closed then); the step opened for a batch that never came is dropped.
        if self.current != SRC_DATALOADER:
            return
        if self.open_step is not None:
            self.last_boundary = self.open_step[:2]
            self.open_step = None

    # ------------------------------------------------------------------ exit
    def finish_open(self, last_post) -> None:
        """A step still open at exit (loop left with break, or model calls) ended at
        the last outermost model return if one was seen after it began."""
        start, self.open_step = self.open_step, None
        if start is None:
            return
        if self.current == SRC_MODULE and last_post is not None and last_post[0] > start[0]:
            self.record(start[:2], last_post, start[2], start[3], last=True)
