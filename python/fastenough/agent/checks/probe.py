"""--probe (opts "probe": true): run one kept root call again with a variant of
its arguments (A B B A, same input) to measure what a waste costs, at exit, with
every global module hook muted so the agent counts no extra steps."""

from __future__ import annotations

import contextlib
import time


@contextlib.contextmanager
def muted_global_hooks():
    from torch.nn.modules import module as m

    names = ("_global_forward_pre_hooks", "_global_forward_hooks",
             "_global_forward_hooks_always_called", "_global_forward_hooks_with_kwargs")
    saved = {}
    for n in names:
        d = getattr(m, n, None)
        if d is not None:
            saved[n] = dict(d)
            d.clear()
    try:
        yield
    finally:
        for n, items in saved.items():
            getattr(m, n).update(items)


def _sync(torch) -> None:
    if torch.cuda.is_initialized():
        torch.cuda.synchronize()


def ab(torch, module, args, kwargs, variant_a, variant_b, rounds: int = 2) -> tuple[int, int]:
    """Min host time (ns) of module(*args, **kwargs) under variant A and B, where
    a variant is (context manager factory, kwargs overrides). A B B A order."""
    times = {"a": [], "b": []}
    order = ["a", "b", "b", "a"] * max(1, rounds // 2)
    with muted_global_hooks():
        for which in order:
            ctx, over = variant_a if which == "a" else variant_b
            kw = dict(kwargs)
            kw.update(over)
            with ctx():
                _sync(torch)
                t0 = time.perf_counter_ns()
                out = module(*args, **kw)
                _sync(torch)
                times[which].append(time.perf_counter_ns() - t0)
            del out
    return min(times["a"]), min(times["b"])


def graph_extra_bytes(torch, module, args, kwargs) -> int | None:
    """Device memory the graph keeps alive: allocated while holding the output,
    with grad minus under inference_mode (CUDA only; None elsewhere)."""
    if not torch.cuda.is_initialized():
        return None
    res = []
    with muted_global_hooks():
        for ctx in (torch.enable_grad, torch.inference_mode):
            with ctx():
                _sync(torch)
                before = torch.cuda.memory_allocated()
                out = module(*args, **kwargs)
                _sync(torch)
                res.append(torch.cuda.memory_allocated() - before)
                del out
    return max(0, res[0] - res[1])
