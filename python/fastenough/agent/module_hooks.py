"""Hooks the agent and its checks put on the program's modules, kept out of
everything the program does with those modules.

A hook lives in the module's own dictionaries (_forward_pre_hooks and friends),
so pickling the module (torch.save(model), copy.deepcopy, multiprocessing) would
pickle the agent with it: "cannot pickle 'module' object", a corrupt checkpoint.
Every hook is therefore registered here, which remembers its handle id, and
Module.__getstate__ (the one pickle and copy call) returns the state without
them: a checkpoint written under `fastenough run` is the one a plain run writes
(no fastenough class in it, so torch.load(weights_only=True) accepts it), and a
copy of a hooked model is a plain model. TorchScript and export compile the
hooks they find: script/trace/export run with ours taken off for the call.
"""

from __future__ import annotations

import collections
import contextlib
import sys

# Handle ids of the hooks on modules that are ours (ids are unique per process).
OURS: set[int] = set()
_HOOK_DICTS = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
               "_forward_hooks_with_kwargs", "_forward_hooks_always_called")
_patched_getstate: set[type] = set()
_muted = 0  # > 0 while a compiler entry point runs with our hooks off


def muted() -> bool:
    return _muted > 0


def add_pre(module, fn, *, with_kwargs: bool = False):
    handle = module.register_forward_pre_hook(fn, with_kwargs=with_kwargs)
    return _ours(module, handle)


def add_post(module, fn, *, with_kwargs: bool = False, always_call: bool = False):
    handle = module.register_forward_hook(fn, with_kwargs=with_kwargs, always_call=always_call)
    return _ours(module, handle)


def add_global_pre(fn):
    """A global forward pre-hook (every module call), remembered as ours."""
    from torch.nn.modules import module as module_mod

    handle = module_mod.register_module_forward_pre_hook(fn)
    OURS.add(handle.id)
    return handle


def add_global_post(fn, *, with_kwargs: bool = False, always_call: bool = False):
    from torch.nn.modules import module as module_mod

    handle = module_mod.register_module_forward_hook(fn, with_kwargs=with_kwargs,
                                                     always_call=always_call)
    OURS.add(handle.id)
    return handle


def remove(handle) -> None:
    OURS.discard(handle.id)
    handle.remove()


_GLOBAL_HOOK_DICTS = ("_global_backward_pre_hooks", "_global_backward_hooks",
                      "_global_forward_pre_hooks", "_global_forward_hooks")


def _has_foreign_global_hook() -> bool:
    from torch.nn.modules import module as module_mod

    return any(k not in OURS for name in _GLOBAL_HOOK_DICTS
               for k in getattr(module_mod, name, {}))


def _hide_our_global_hooks(torch) -> None:
    """torch.compile's OptimizedModule warns at its calls while any global module
    hook exists ("Using torch.compile(module) when there are global hooks"), and
    ours are there until the main model is known, or for good once something is
    compiled: its check (_has_any_global_hook) is made to see the program's
    global hooks only. Natively wrapped (passthrough.py): no frame of ours."""
    from torch.nn.modules import module as module_mod

    from fastenough.agent import passthrough

    check = getattr(module_mod, "_has_any_global_hook", None)
    if check is None or getattr(check, "_fastenough_hides_ours", False):
        return
    wrapper = passthrough.wrap(
        check, transform=lambda args, found: found and _has_foreign_global_hook())
    if wrapper is not None:
        wrapper._fastenough_hides_ours = True
        module_mod._has_any_global_hook = wrapper


def _ours(module, handle):
    OURS.add(handle.id)
    _filter_getstate_of(type(module))
    return handle


def without_ours(state):
    """The module state `state` (a copy of its __dict__) minus our hooks."""
    if not isinstance(state, dict) or not OURS:
        return state
    for name in _HOOK_DICTS:
        hooks = state.get(name)
        if hooks and any(k in OURS for k in hooks):
            state[name] = collections.OrderedDict(
                (k, v) for k, v in hooks.items() if k not in OURS)
    return state


def install(torch) -> None:
    """Filter nn.Module.__getstate__ (and that of any subclass that defines its own,
    when one of ours is hooked), and mute our hooks in torch.jit.script/trace and
    export for the duration of the call."""
    _filter_getstate_of(torch.nn.Module)
    _hide_our_global_hooks(torch)
    for owner_name, names in (("torch.jit", ("script", "trace", "trace_module")),
                              ("torch.onnx", ("export",)), ("torch.export", ("export",))):
        owner = sys.modules.get(owner_name)
        for name in names:
            fn = getattr(owner, name, None) if owner is not None else None
            if fn is not None and not getattr(fn, "_fastenough_mutes_hooks", False):
                setattr(owner, name, _muting(fn))


def _filter_getstate_of(cls: type) -> None:
    # The class whose __getstate__ pickling will call: the first in the MRO that
    # defines one (torch's Module, or a subclass such as RNNBase or DDP).
    owner = next((c for c in cls.__mro__ if "__getstate__" in c.__dict__), None)
    if owner is None or owner in _patched_getstate or owner is object:
        return
    from fastenough.agent import passthrough

    # Native (passthrough.py): a program whose pickling fails sees its own
    # traceback, with no frame of ours in it.
    wrapper = passthrough.wrap(owner.__dict__["__getstate__"],
                               transform=lambda args, state: without_ours(state))
    if wrapper is None:
        return
    owner.__getstate__ = wrapper
    _patched_getstate.add(owner)


def _muting(fn):
    """fn (torch.jit.script, trace, export) with our hooks taken off the modules
    it is given, for the duration of the call; a native wrapper, so that the
    compiler's errors reach the program with no frame of ours."""
    from fastenough.agent import passthrough

    def before(args, kwargs):
        global _muted
        mods = [a for a in list(args[:1]) + list(kwargs.values()) if _is_module(a)]
        stack = contextlib.ExitStack()
        for m in mods:
            stack.enter_context(_hooks_off(m))
        _muted += 1
        return stack

    def done(stack, *rest):
        global _muted
        _muted -= 1
        stack.close()

    wrapper = passthrough.wrap(fn, before=before, after=done, on_error=done)
    if wrapper is None:
        return fn
    wrapper._fastenough_mutes_hooks = True
    return wrapper


def _is_module(obj) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module)


@contextlib.contextmanager
def _hooks_off(root):
    """Our hooks out of every module of root's tree, then back in their places
    (the dictionaries keep their identity: handles refer to them weakly)."""
    saved = []
    if OURS:
        for m in root.modules():
            for name in _HOOK_DICTS:
                hooks = m.__dict__.get(name)
                if hooks and any(k in OURS for k in hooks):
                    saved.append((hooks, list(hooks.items())))
                    for k in [k for k in hooks if k in OURS]:
                        del hooks[k]
    try:
        yield
    finally:
        for hooks, items in saved:
            added = [(k, v) for k, v in hooks.items() if all(k != j for j, _ in items)]
            hooks.clear()
            hooks.update(items)
            hooks.update(added)
