"""Where a steady step's host time goes: forward, backward, optimizer, data.

For the first TIMED_STEPS steady steps of each mode (train, eval) the timer
puts its own hooks in place: a pre and a post hook on the main model (its
forward), a global optimizer pre-hook (the step ends in the agent's optimizer
post-hook); backward time comes from the native wrapper of
torch.autograd.backward that counts for the whole run (autograd_watch.py) and
data time from the DataLoader's fetch. Then the hooks go, and the native
recorders may defer: the steady loop pays for the timing only in those steps.
What the parts leave of the step is "other" (loss, metrics, Python between the
calls).

The parts never overlap: a forward and a backward that run inside
optimizer.step(closure) (LBFGS, Lightning's automatic optimization) are the
forward's and the backward's, and the optimizer's own time is what is left of
its step, so the parts add up to at most the step.

The report turns the split into the step-bound verdict (rundir/step_bound.cc).
"""

from __future__ import annotations

import sys
import time

from fastenough.agent import compile_info, module_hooks

TIMED_STEPS = 16
KINDS = ("forward", "backward", "optimizer", "data")


class StepTimer:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.mode: str | None = None  # the mode being timed, while active
        self.by_mode: dict[str, dict] = {}
        self._done: set[str] = set()
        self._pending = dict.fromkeys(KINDS, 0)
        self._handles: list = []
        self._autograd = None  # autograd_watch.AutogradWatch, while active
        self._bwd_mark = 0  # its backward_ns when the current step began
        self._t_fwd = 0
        self._t_opt = 0
        self._opt_inner = 0  # forward + backward time when the optimizer step began

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
        self._pending = dict.fromkeys(KINDS, 0)
        torch = self.agent.torch
        if model is not None:
            self._handles.append(module_hooks.add_pre(model, self._fwd_pre))
            self._handles.append(module_hooks.add_post(model, self._fwd_post, always_call=True))
        import torch.optim.optimizer as optim_mod

        from fastenough.agent import autograd_watch

        self._handles.append(optim_mod.register_optimizer_step_pre_hook(self._opt_pre))
        self._autograd = autograd_watch.shared(torch)
        self._bwd_mark = self._autograd.backward_ns

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

    # ------------------------------------------------------------------ parts
    def _fwd_pre(self, module, args) -> None:
        if not compile_info.is_compiling():
            self._t_fwd = time.perf_counter_ns()

    def _fwd_post(self, module, args, output) -> None:
        if self._t_fwd and not compile_info.is_compiling():
            self._pending["forward"] += time.perf_counter_ns() - self._t_fwd
            self._t_fwd = 0

    def _inner_ns(self) -> int:
        """Forward and backward time of the current step so far."""
        bwd = self._autograd.backward_ns - self._bwd_mark if self._autograd is not None else 0
        return self._pending["forward"] + bwd

    def _opt_pre(self, optimizer, args, kwargs) -> None:
        self._opt_inner = self._inner_ns()
        self._t_opt = time.perf_counter_ns()

    def optimizer_end(self) -> None:
        """Called by the agent's optimizer post-hook, before it ends the step."""
        if self._t_opt:
            inside = self._inner_ns() - self._opt_inner  # a closure's forward and backward
            self._pending["optimizer"] += max(0, time.perf_counter_ns() - self._t_opt - inside)
            self._t_opt = 0

    def add_data(self, ns: int) -> None:
        if self.active:
            self._pending["data"] += ns

    # ------------------------------------------------------------------ steps
    def step(self, mode: str, phase: str, duration: int) -> None:
        """A step recorded in Python: its parts go to its mode's sums (steady only)."""
        pending, self._pending = self._pending, dict.fromkeys(KINDS, 0)
        if self._autograd is not None:
            now_ns = self._autograd.backward_ns
            pending["backward"] = now_ns - self._bwd_mark
            self._bwd_mark = now_ns
        if self.mode != mode or phase != "steady":
            return
        m = self.by_mode.get(mode)
        if m is None:
            m = self.by_mode[mode] = {"steps": 0, "step_ns": 0,
                                      **{f"{k}_ns": 0 for k in KINDS}}
        m["steps"] += 1
        m["step_ns"] += duration
        for k in KINDS:
            m[f"{k}_ns"] += pending[k]
        if m["steps"] >= TIMED_STEPS:
            self.end()

    def discard(self) -> None:
        self._pending = dict.fromkeys(KINDS, 0)
        if self._autograd is not None:
            self._bwd_mark = self._autograd.backward_ns


def model_of(agent):
    """The main model (the agent's model-call source knows it), or None."""
    calls = agent.model_calls
    ref = calls.main_ref
    model = ref() if ref is not None else None
    torch = sys.modules.get("torch")
    return model if torch is not None and isinstance(model, torch.nn.Module) else None
