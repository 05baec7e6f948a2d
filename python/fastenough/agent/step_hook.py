"""Native forward pre-hooks that defer per-step Python work (fastenough._core.StepHook).

Python run right after a model call meets cold caches: on a 3.5 ms CPU step a
trivial Python hook costs ~10-15 us, and the agent's and the checks' hooks
together cost ~60 us. Once told to defer, the native pre-hook records the step
boundary and batch size (agent) or only counts the call (checks) and calls the
Python hook only every so often; while it defers, its owner keeps no forward
(post) hook on the model and adds a one-shot one from a live call that needs
it (one_shot_post). See bindings/step_hook_bindings.cc for the exact rules.
"""

from __future__ import annotations

import sys
import threading


def make(live_pre, *, record: bool, batch_size=None, main_thread=None):
    """A StepHook calling live_pre when it does not defer, or None when
    the native module or torch is not there (then the Python hooks serve)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        from fastenough import _core

        cls = _core.StepHook
    except (ImportError, AttributeError):
        return None
    ints = tuple(d for d in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                             getattr(torch, "uint16", None), getattr(torch, "uint32", None),
                             getattr(torch, "uint64", None)) if d is not None)
    return cls(torch.Tensor, ints, live_pre,
               batch_size if batch_size is not None else _no_batch_size, record,
               main_thread if main_thread is not None else threading.main_thread().ident)


def _no_batch_size(batch):
    return None, None


def one_shot_post(module, post, *, with_kwargs: bool = False):
    """Register `post` as a forward hook of `module` for the call in progress only
    (torch reads the forward hooks after forward; always_call: also if it raises).

    It takes itself off when called on the normal path, where torch iterates over
    a copy of the hooks. When forward raised, torch iterates over the hook
    dictionary itself and removing would break that loop ("OrderedDict mutated
    during iteration", hiding the program's own error): then the hook only
    marks itself spent and goes at its next call."""
    from fastenough.agent import module_hooks

    handle = None
    spent = False

    def once(*args):
        nonlocal spent
        if sys.exc_info()[0] is None:
            module_hooks.remove(handle)
        if spent:
            return None
        spent = True
        return post(*args)

    handle = module_hooks.add_post(module, once, with_kwargs=with_kwargs, always_call=True)
    return handle
