"""torch.autograd.backward and torch.autograd.grad, counted and timed for the
whole run by native wrappers (passthrough.py): the checks tell training from
evaluation by the backward calls between forwards, and the step timer splits
a step's time into forward, backward and optimizer.

Tensor.backward() calls torch.autograd.backward by its module attribute, so
it is counted too. One pair of wrappers per process, shared by the agent and
the checks; the wrappers leave no frame in the program's tracebacks.
"""

from __future__ import annotations

from fastenough.agent import passthrough

_WATCH: AutogradWatch | None = None


class AutogradWatch:
    def __init__(self, torch) -> None:
        self.torch = torch
        self.backward = passthrough.wrap(torch.autograd.backward)
        self.grad = passthrough.wrap(torch.autograd.grad)
        self._originals = (torch.autograd.backward, torch.autograd.grad)
        if self.backward is not None:
            torch.autograd.backward = self.backward
        if self.grad is not None:
            torch.autograd.grad = self.grad

    @property
    def calls(self) -> int:
        """backward() and grad() calls so far."""
        return sum(w.calls for w in (self.backward, self.grad) if w is not None)

    @property
    def backward_ns(self) -> int:
        """Time spent inside backward() and grad() so far."""
        return sum(w.ns for w in (self.backward, self.grad) if w is not None)

    def remove(self) -> None:
        autograd = self.torch.autograd
        backward, grad = self._originals
        if autograd.backward is self.backward:
            autograd.backward = backward
        if autograd.grad is self.grad:
            autograd.grad = grad


def shared(torch) -> AutogradWatch:
    """The process's watch, installed on first use."""
    global _WATCH
    if _WATCH is None:
        _WATCH = AutogradWatch(torch)
    return _WATCH


def remove() -> None:
    global _WATCH
    if _WATCH is not None:
        _WATCH.remove()
        _WATCH = None
