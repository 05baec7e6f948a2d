"""The agent's wrappers of the program's callables, native (fastenough._core.CallThrough).

Every callable the agent replaces (torch.autograd.backward, a DataLoader
iterator's __next__, Tensor.item during the sync watch, torch.jit.script, a
module's __getstate__, torch's profiler entry points) is replaced by a native
wrapper: it leaves no Python frame between the program and what it calls, so
the program's tracebacks and the frames counted by warnings.warn(stacklevel=N)
are exactly those of a run without the agent. The agent's callbacks run before
and after the call (their frames exist only while they run) and can never
raise into the program: a callback that fails is counted (`errors`) and the
agent switches itself off at its next check (`failed`).

    w = passthrough.wrap(torch.autograd.backward)          # counts calls and time
    passthrough.replace(agent, torch.autograd, "backward", w)  # put back at uninstall

A design rule, checked by tests/python/agent/test_agent_frames.py: no Python
function of the agent is ever on the stack while the program's own code runs.
"""

from __future__ import annotations


def available() -> bool:
    try:
        from fastenough import _core
    except ImportError:
        return False
    return hasattr(_core, "CallThrough")


def wrap(target, *, before=None, after=None, on_error=None, transform=None, reentry=None):
    """A native wrapper of target (see the module docstring), or None when the
    native module is missing (the feature that needed it then stays off)."""
    try:
        from fastenough import _core
    except ImportError:
        return None
    w = _core.CallThrough(target, before=before, after=after, on_error=on_error,
                          transform=transform, reentry=reentry)
    # What introspection of the replaced attribute finds: the original's name,
    # documentation and signature (inspect.signature follows __wrapped__).
    for name in ("__name__", "__qualname__", "__doc__", "__module__"):
        value = getattr(target, name, None)
        if value is not None:
            try:  # noqa: SIM105 - contextlib costs an import on this path
                setattr(w, name, value)
            except (AttributeError, TypeError):
                pass
    w.__wrapped__ = target
    return w


def reentry():
    """A shared guard: wrappers made with it do not count calls nested in one another."""
    from fastenough import _core

    return _core.CallReentry()


def failed(*wrappers) -> str | None:
    """The last error of the first wrapper whose callback failed, else None."""
    for w in wrappers:
        if w is not None and w.errors:
            return w.last_error or "a callback of a native wrapper failed"
    return None


def original(attr):
    """The callable a wrapper stands for (attr itself when it is not one of ours)."""
    try:
        from fastenough import _core
    except ImportError:
        return attr
    while isinstance(attr, _core.CallThrough):
        attr = attr.target
    return attr
