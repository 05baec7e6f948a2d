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
import functools
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


def remove(handle) -> None:
    OURS.discard(handle.id)
    handle.remove()


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
    orig = owner.__dict__["__getstate__"]

    @functools.wraps(orig)
    def __getstate__(self):
        return without_ours(orig(self))

    __getstate__._fastenough_orig = orig
    owner.__getstate__ = __getstate__
    _patched_getstate.add(owner)


def _muting(fn):
    @functools.wraps(fn)
    def with_our_hooks_off(*args, **kwargs):
        mods = [a for a in list(args[:1]) + list(kwargs.values()) if _is_module(a)]
        with contextlib.ExitStack() as stack:
            for m in mods:
                stack.enter_context(_hooks_off(m))
            global _muted
            _muted += 1
            try:
                return fn(*args, **kwargs)
            finally:
                _muted -= 1

    with_our_hooks_off._fastenough_mutes_hooks = True
    return with_our_hooks_off


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
