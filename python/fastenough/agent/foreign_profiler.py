"""The program's own profiler: the agent's profiler window stands down for it.

Two profiler sessions in one process share torch's one profiler state: when a
program that profiles itself (nanoGPT's bench.py --profile=True) started its
torch.profiler while the agent's window was on, torch reported "disableProfiler
called but no active profiling session found" and the process died of SIGSEGV
(2 of 2 runs), its own trace never written. So:

  * the window never starts while any profiler session is active in the
    process (torch.autograd._profiler_enabled(): torch.profiler,
    torch.autograd.profiler.profile, emit_nvtx, emit_itt, a session started
    from C++);
  * every way the program starts one goes through torch.autograd.profiler's
    _prepare_profiler / _enable_profiler (and the legacy profiler's
    _enable_profiler_legacy): those are wrapped natively (passthrough.py, no
    frame of ours), and when the program calls one the agent's window, if it
    is on, is stopped first (what it recorded is kept), and no window starts
    afterwards. The report says the window was skipped or cut short, and why.
"""

from __future__ import annotations

from fastenough.agent import passthrough

# (module, owner class or None, attribute). torch.profiler's prepare_trace is
# watched too: it imports torch._inductor (tens of MiB) before it reaches
# _prepare_profiler, and the window must stand down before that, not be cut
# short by the memory it costs.
_ENTRY_POINTS = (("torch.profiler.profiler", "_KinetoProfile", "prepare_trace"),
                 ("torch.autograd.profiler", None, "_prepare_profiler"),
                 ("torch.autograd.profiler", None, "_enable_profiler"),
                 ("torch.autograd.profiler_legacy", None, "_enable_profiler_legacy"))


class ForeignProfilerWatch:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.ours = False  # True while the agent's own window starts, steps or stops
        self.seen: str | None = None  # how the program's profiler was seen, once it was
        self._wrappers: list = []

    def install(self, torch) -> None:
        import importlib

        for module_name, cls_name, name in _ENTRY_POINTS:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            owner = getattr(module, cls_name, None) if cls_name else module
            fn = getattr(owner, name, None) if owner is not None else None
            if fn is None:
                continue
            wrapper = passthrough.wrap(fn, before=self._before(name))
            if wrapper is not None:
                self._wrappers.append(wrapper)
                self.agent.patch(owner, name, wrapper)

    def _before(self, name: str):
        def before(args, kwargs):
            if not self.ours:
                self.program_started(f"the program started its own profiler ({name})")

        return before

    def program_started(self, how: str) -> None:
        if self.seen is None:
            self.seen = how
        agent = self.agent
        if agent.enabled:
            agent.stand_down_window(how)

    def active_session(self, torch) -> str | None:
        """Why a window must not start now: a profiler session is on, or the
        program has started one before; None when the window may start."""
        if self.seen is not None:
            return self.seen
        try:
            if torch.autograd._profiler_enabled():
                return "a profiler session of the program is active"
        except Exception:  # noqa: BLE001 - an old torch without the query
            return None
        return None

    def failed(self) -> str | None:
        return passthrough.failed(*self._wrappers)
