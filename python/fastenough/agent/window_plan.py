"""Where the profiler window goes: on steps that do the work the run is about.

The window profiles a few steady steps of the first mode to reach steady
state. Real programs showed two ways that lands on the wrong steps:

  * steps with no model work: sentence-transformers' fit() first iterates its
    DataLoader without a forward; the window landed on those data-only steps
    (85 us) and reported a 30% dataloader-bound. The window waits for steady
    steps in which the main model was called (a program with no module at
    all is not waited for);
  * steps that later turn out not to be the run's steps: REINFORCE runs 55
    single-row policy forwards before its first optimizer.step(); the window
    profiled five of them, then the episodes became the steps. When the step
    source of the profiled mode changes after the window, or another mode
    accumulates several times the steady time of the profiled one (a short
    evaluation before a long training), the window runs once more there; its
    trace replaces the first one, and the report says which mode it covers
    and why it moved.
"""

from __future__ import annotations

REWINDOWS = 1  # windows after the first
DOMINANCE = 3.0  # steady time of another mode, in multiples of the profiled one's
NO_MODEL_STEPS = 64  # steady steps after which a program without a model is profiled anyway


class WindowPlan:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.rewindows_left = REWINDOWS
        self.steady_ns: dict[str, int] = {}  # steady time per mode so far
        self._calls_at_steady: dict[str, int] = {}  # per mode, when it first became steady
        self.window_mode: str | None = None
        self.moved: str | None = None  # why the window ran again, once it did

    # ------------------------------------------------------------------ the agent's calls
    def on_steady_begin(self) -> None:
        mode = self.agent.phases.mode
        if mode not in self._calls_at_steady:
            self._calls_at_steady[mode] = self.agent.model_calls.calls_seen()

    def add_steady(self, mode: str, ns: int) -> None:
        self.steady_ns[mode] = self.steady_ns.get(mode, 0) + ns

    def may_start(self) -> bool:
        """The window may start now: the steady steps so far did model work; or
        the program marks its own steps (fastenough.step()), or has run
        NO_MODEL_STEPS steady steps without any model: nothing to wait for."""
        from fastenough.agent.steps import SRC_EXPLICIT

        agent = self.agent
        calls = agent.model_calls
        if agent.engine.current == SRC_EXPLICIT:
            return True
        if calls.main_ref is None:
            return agent.phases.steps >= NO_MODEL_STEPS
        base = self._calls_at_steady.get(agent.phases.mode)
        return base is None or calls.calls_seen() > base

    def on_window_started(self, mode: str) -> None:
        self.window_mode = mode

    def on_source_upgrade(self, mode: str, source: str) -> None:
        if self.window_mode == mode:
            self._reopen(f"the {mode} steps came from {source} calls after the first window, "
                         "which profiled the earlier ones")

    def on_mode_entered(self, mode: str) -> None:
        w = self.window_mode
        if w is None or mode == w:
            return
        mine, theirs = self.steady_ns.get(mode, 0), self.steady_ns.get(w, 0)
        if theirs > 0 and mine >= DOMINANCE * theirs:
            self._reopen(f"the {mode} steps took {mine / theirs:.1f}x the steady time of the "
                         f"{w} steps the first window profiled")

    def _reopen(self, why: str) -> None:
        window = self.agent.window
        if self.rewindows_left <= 0 or not window.done or window.active \
                or not (window.info or {}).get("trace"):
            return
        self.rewindows_left -= 1
        self.moved = why
        self.window_mode = None
        window.done = False
