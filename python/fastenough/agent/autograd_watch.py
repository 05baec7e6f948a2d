"""torch.autograd.backward and torch.autograd.grad, counted and timed for the
whole run by native wrappers (passthrough.py): the checks tell training from
evaluation by the backward calls between forwards, and the step timer splits
a step's time into forward, backward and optimizer.

Tensor.backward() calls torch.autograd.backward by its module attribute, so
it is counted too. One pair of wrappers per process, shared by the agent and
the checks; the wrappers leave no frame in the program's tracebacks.

Asked once (ask_graph_size(), before the profiler window), the next backward's
graph is walked before it runs and its nodes counted: torch runs a backward
in C++, where the window's memory watchdog cannot stop the profiler, so the
window is refused when even the least a backward that large records would
pass its memory budget (profile_window.ProfileWindow.unstoppable_step_refused).
"""

from __future__ import annotations

from fastenough.agent import passthrough

_WATCH: AutogradWatch | None = None
# The most nodes one walk visits (functorch's Lennard-Jones fit with 1000
# points: 16,128 nodes, walked in 25-30 ms; the count saturates here).
MAX_GRAPH_WALK = 100_000


class AutogradWatch:
    def __init__(self, torch) -> None:
        self.torch = torch
        self.graph_nodes: int | None = None  # the walked backward's nodes (ask_graph_size)
        self._walk_next = False
        self.backward = passthrough.wrap(torch.autograd.backward, before=self._before_backward)
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

    def ask_graph_size(self) -> None:
        """The next backward's graph is walked (graph_nodes) before it runs."""
        self._walk_next = True

    def _before_backward(self, args, kwargs) -> None:
        if not self._walk_next:
            return
        self._walk_next = False
        tensors = args[0] if args else kwargs.get("tensors")
        roots = [tensors] if isinstance(tensors, self.torch.Tensor) else list(tensors or ())
        self.graph_nodes = graph_size([getattr(t, "grad_fn", None) for t in roots])

    def remove(self) -> None:
        autograd = self.torch.autograd
        backward, grad = self._originals
        if autograd.backward is self.backward:
            autograd.backward = backward
        if autograd.grad is self.grad:
            autograd.grad = grad


def graph_size(roots: list) -> int:
    """The autograd nodes reachable from roots (at most MAX_GRAPH_WALK)."""
    seen: set = set()
    stack = [r for r in roots if r is not None]
    while stack and len(seen) < MAX_GRAPH_WALK:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for child, _ in getattr(node, "next_functions", ()):
            if child is not None and child not in seen:
                stack.append(child)
    return len(seen)


def current() -> AutogradWatch | None:
    """The process's watch, or None when nothing installed it (unlike shared())."""
    return _WATCH


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
