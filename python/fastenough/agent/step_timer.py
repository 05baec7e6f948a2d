"""Where a steady step's host time goes: forward, backward, optimizer, data.

For the first TIMED_STEPS steady steps of each mode (train, eval) the timer
puts its own hooks in place: a pre and a post hook on the main model (its
forward), a global optimizer pre-hook (the optimizer's part ends in the
agent's optimizer post-hook); backward time comes from the native wrapper of
torch.autograd.backward/grad that counts for the whole run
(autograd_watch.py) and data time from the DataLoader's fetch. Then the hooks
go, and the native recorders may defer: the steady loop pays for the timing
only in those steps. What the parts leave of the step is "other" (loss,
metrics, Python between the calls).

The parts are disjoint and lie within their step by construction: the
program's main thread is, at every instant, in at most one part. The timer
keeps a stack of the parts open on that thread (a forward inside an
optimizer's closure, a forward of the main model inside its own forward) and
at every transition charges the time since the last one to the innermost
open part only, as a segment of time (kind, start, end); backward time that
accrued meanwhile (the autograd wrapper's clock, which counts every thread)
is charged as at most that same stretch, and the rest to the open part. A
step's parts are its segments clipped to the step's own [start, end]: an
evaluation forward before the step began, or a forward whose hooks were
taken off half-way (a mode switch inside a call: its post hook never comes,
or its pre hook is called from torch's snapshot of the hooks after the
timer stood down), can add nothing to it. Before (issue 37, item 4): a
start time left over from such a call made the next forward span the
evaluation between two training steps: forward + backward + optimizer came
to 129-159% of the step.

With the split, each mode's record says what its timed steps did (how many
ran a backward, an optimizer step, a forward of the main model) and what the
flags said at the main model's outermost calls (module.training, grad mode):
the report names a step's mode from what it does (issue 37, item 5).

The report turns the split into the step-bound verdict (rundir/step_bound.cc).
"""

from __future__ import annotations

import sys
import threading
import time

from fastenough.agent import compile_info, module_hooks

TIMED_STEPS = 16
KINDS = ("forward", "backward", "optimizer", "data")
# What the timed steps of a mode did and what the flags said, counted in steps.
DID = ("with_forward", "with_backward", "with_optimizer", "training_flag", "grad_enabled")
MAX_SEGMENTS = 20_000  # a step with more transitions keeps its latest ones


def _now() -> int:
    # The steps' own clock (phases.now): parts are clipped to a step's bounds.
    return time.monotonic_ns()


class StepTimer:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.mode: str | None = None  # the mode being timed, while active
        self.by_mode: dict[str, dict] = {}
        self._data_per_step: dict[str, list[int]] = {}  # each timed step's data wait, by mode
        self._done: set[str] = set()
        self._handles: list = []
        self._autograd = None  # autograd_watch.AutogradWatch, while active
        self._reset(0)

    def _reset(self, t: int) -> None:
        self._stack: list[str] = []  # parts open on the main thread, innermost last
        self._segs: list[list] = []  # [kind, start, end] since the last step
        self._last = t  # the last transition
        self._bwd_last = self._autograd.backward_ns if self._autograd is not None else 0
        self._began = t
        self._quiet_since_begin = True  # no transition yet since begin()
        self._did = dict.fromkeys(DID, False)
        self._bwd_calls = self._autograd.calls if self._autograd is not None else 0

    @property
    def active(self) -> bool:
        return self.mode is not None

    def wants(self, mode: str) -> bool:
        """The mode's steady steps are still to be timed (deferral waits for it)."""
        return mode not in self._done and bool(self.agent.opts.get("step_timer", True))

    # ------------------------------------------------------------------ on / off
    def begin(self, mode: str, model) -> None:
        """Steady steps of `mode` begin: put the timing hooks in place."""
        if self.active or not self.wants(mode):
            return
        self.mode = mode
        torch = self.agent.torch
        if model is not None:
            self._handles.append(module_hooks.add_pre(model, self._fwd_pre))
            self._handles.append(module_hooks.add_post(model, self._fwd_post, always_call=True))
        import torch.optim.optimizer as optim_mod

        from fastenough.agent import autograd_watch

        self._handles.append(optim_mod.register_optimizer_step_pre_hook(self._opt_pre))
        self._autograd = autograd_watch.shared(torch)
        self._reset(_now())

    def end(self, done: bool = True) -> None:
        """Take the hooks off; `done`: the mode is timed (else it resumes at its
        next steady phase: a mode switch cut its timing short)."""
        if self.mode is not None and done:
            self._done.add(self.mode)
        self.mode = None
        for h in self._handles:
            try:  # noqa: SIM105
                module_hooks.remove(h)
            except Exception:  # noqa: BLE001, S110 - a module already gone
                pass
        self._handles = []
        self._autograd = None
        self._reset(0)  # a part left open by a call cut short is nobody's

    # ------------------------------------------------------------------ parts
    def _on_main(self) -> bool:
        # is_compiling() first: under dynamo nothing of the timer is read (a
        # guard on its state would recompile the program's function when the
        # timing ends).
        return (not compile_info.is_compiling() and self.mode is not None
                and threading.get_ident() == getattr(self.agent, "main_ident", None))

    def _advance(self, t: int) -> None:
        """Charge [last transition, t] to the innermost open part, less the
        backward time that accrued meanwhile (charged as backward)."""
        last = self._last
        dt = t - last
        if dt <= 0:
            return
        self._last = t
        self._quiet_since_begin = False
        bwd = 0
        aw = self._autograd
        if aw is not None:
            now_bwd = aw.backward_ns
            bwd = min(dt, max(0, now_bwd - self._bwd_last))
            self._bwd_last = now_bwd
            calls = aw.calls
            if calls != self._bwd_calls:
                self._did["with_backward"] = True
                self._bwd_calls = calls
        rest = dt - bwd
        if rest > 0 and self._stack:
            self._charge(self._stack[-1], last, last + rest)
        if bwd > 0:
            self._charge("backward", t - bwd, t)

    def _charge(self, kind: str, t0: int, t1: int) -> None:
        segs = self._segs
        if segs and segs[-1][0] == kind and segs[-1][2] == t0:
            segs[-1][2] = t1  # the same part goes on
            return
        segs.append([kind, t0, t1])
        if len(segs) > MAX_SEGMENTS:
            del segs[: MAX_SEGMENTS // 2]

    def _open(self, kind: str) -> None:
        self._advance(_now())
        self._stack.append(kind)

    def _close(self, kind: str) -> bool:
        """Close the innermost open `kind`; False when none is open."""
        stack = self._stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] == kind:
                self._advance(_now())
                del stack[i:]  # parts opened inside it and never closed end with it
                return True
        return False

    def _flags(self, module) -> None:
        did = self._did
        did["with_forward"] = True
        if module.training:
            did["training_flag"] = True
        if self.agent.torch.is_grad_enabled():
            did["grad_enabled"] = True

    def _fwd_pre(self, module, args) -> None:
        if self._on_main():
            if "forward" not in self._stack:  # the outermost call reads the flags
                self._flags(module)
            self._open("forward")

    def _fwd_post(self, module, args, output) -> None:
        if not self._on_main() or self._close("forward"):
            return
        if not self._stack and self._quiet_since_begin and self._began:
            # The hooks went on inside this very call (a mode switch read in its
            # pre hooks begins the timing): its forward began when the timing did.
            self._flags(module)
            self._stack.append("forward")
            self._advance(_now())
            self._stack.pop()

    def _opt_pre(self, optimizer, args, kwargs) -> None:
        if self._on_main():
            self._did["with_optimizer"] = True
            self._open("optimizer")

    def optimizer_end(self) -> None:
        """Called by the agent's optimizer post-hook, before it ends the step."""
        if self._on_main():
            self._close("optimizer")

    def add_data(self, ns: int) -> None:
        """A DataLoader fetch of ns just returned (on the main thread)."""
        if not self._on_main():
            return
        t = _now()
        d = max(0, min(int(ns), t - self._last))
        self._advance(t - d)
        if d > 0:
            self._charge("data", t - d, t)
            self._last = t

    # ------------------------------------------------------------------ steps
    def step(self, mode: str, phase: str, duration: int, start: int | None = None,
             end: int | None = None) -> None:
        """A step recorded in Python, [start, end] on the steps' clock (end: now
        when not given): its parts, clipped to it, go to its mode's sums
        (steady only)."""
        if self.mode is None:
            return
        t = _now()
        if end is None:
            end = t
        if start is None:
            start = end - duration
        self._advance(t)
        segs, self._segs = self._segs, []
        did, self._did = self._did, dict.fromkeys(DID, False)
        if self._stack:  # a part still open (the step ended inside it) goes on
            did["with_forward"] |= "forward" in self._stack
            self._did["with_forward"] = "forward" in self._stack
        if self.mode != mode or phase != "steady":
            return
        parts = dict.fromkeys(KINDS, 0)
        for kind, t0, t1 in segs:
            lo, hi = max(t0, start), min(t1, end)
            if hi > lo:
                parts[kind] += hi - lo
        m = self.by_mode.get(mode)
        if m is None:
            m = self.by_mode[mode] = {"steps": 0, "step_ns": 0,
                                      **{f"{k}_ns": 0 for k in KINDS},
                                      **{f"steps_{k}": 0 for k in DID}}
        m["steps"] += 1
        m["step_ns"] += max(0, end - start)
        for k in KINDS:
            m[f"{k}_ns"] += parts[k]
        for k in DID:
            m[f"steps_{k}"] += int(did[k])
        # The wait of nearly every timed step (its 10th percentile): a loader
        # that holds the loop in every step, told from one stretched by the
        # machine now and then (rundir/dataloader_wait.cc).
        waits = self._data_per_step.setdefault(mode, [])
        waits.append(parts["data"])
        m["data_ns_p10"] = sorted(waits)[len(waits) // 10]
        if m["steps"] >= TIMED_STEPS:
            self.end()

    def discard(self) -> None:
        """Steps replayed from a native recorder: what was charged is nobody's."""
        if self.mode is not None:
            stack = self._stack
            self._reset(_now())
            self._stack = stack
            self._quiet_since_begin = False


def model_of(agent):
    """The main model (the agent's model-call source knows it), or None."""
    calls = agent.model_calls
    ref = calls.main_ref
    model = ref() if ref is not None else None
    torch = sys.modules.get("torch")
    return model if torch is not None and isinstance(model, torch.nn.Module) else None
