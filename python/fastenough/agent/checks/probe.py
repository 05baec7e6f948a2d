"""--probe (opts "probe": true): run one kept root call again with a variant of
its arguments (A B B A, same input) to measure what a waste costs, at exit, with
every global module hook muted so the agent counts no extra steps."""

from __future__ import annotations

import contextlib
import random
import sys
import time
import weakref

from fastenough.agent.quiet_warnings import ignoring_warnings


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


# ---------------------------------------------------------------- the eval probe
# train-mode-in-eval and autograd-in-eval are priced by timing the model's own
# forward on a kept input of the run both ways, at exit: a model of the
# backward's cost misses PyTorch's fast paths (nn.TransformerEncoder takes its
# fused path only in eval mode with autograd off: a 60-line scoring script ran
# 3x faster fixed, where grad-off alone had measured 2.4% of a step).

# The default probe spends at most this share of the run so far (and at most
# EVAL_PROBE_MAX_NS); --probe allows more and more rounds.
EVAL_PROBE_SHARE = 0.08
EVAL_PROBE_SHARE_ASKED = 0.25
EVAL_PROBE_MAX_NS = 10_000_000_000
EVAL_PROBE_MAX_FORWARD_NS = 2_000_000_000  # one forward longer than this: not probed
EVAL_PROBE_ROUNDS = 3  # rounds of A B .. B A; the minimum of each variant's calls is kept
# Memory: the graphs of grad forwards live while they are timed; they must fit
# well inside what is free (CUDA: capacity - allocated; CPU: MemAvailable).
EVAL_PROBE_FREE_SHARE = 0.5
# When the whole batch does not fit, the probe times the first rows of it: the
# rows that fit by a forward's share of its batch, over this margin (a forward
# has a fixed cost that fewer rows do not cut).
EVAL_PROBE_ROWS_MARGIN = 2.0


# The kept call's input stays alive until exit: only when its tensors' storages
# hold at most this much (a batch the program would have freed must not stay).
EVAL_CALL_MAX_INPUT_BYTES = 64 << 20


def input_bytes(torch, value, depth: int = 0, seen: set | None = None) -> int:
    """Bytes of the distinct storages of the tensors in value (nested tuples,
    lists and dicts, such as a tokenizer's batch)."""
    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        try:
            st = value.untyped_storage()
            key = (st.data_ptr(), str(value.device))
        except Exception:  # noqa: BLE001 - a tensor without storage (meta, sparse)
            return 0
        if key in seen:
            return 0
        seen.add(key)
        return st.nbytes()
    if depth > 4:
        return 0
    items = value.values() if isinstance(value, dict) else (
        value if isinstance(value, (list, tuple)) else ())
    return sum(input_bytes(torch, v, depth + 1, seen) for v in items)


class EvalCall:
    """One root call of the evaluation as it ran: its arguments, the grad mode
    and every submodule's training flag at the call (in module.modules() order).
    The module is held weakly: a model the program frees must go (the agent
    notices a freed main model, and its memory must not stay)."""

    __slots__ = ("ref", "args", "kwargs", "grad", "inference", "flags", "graph", "kinds",
                 "forward_kind")

    def __init__(self, torch, module, args, kwargs, graph: bool) -> None:
        from fastenough.agent.checks.eval_graph import training_layer_kind

        self.ref = weakref.ref(module)
        self.args = args
        self.kwargs = dict(kwargs)
        self.grad = torch.is_grad_enabled()
        self.inference = torch.is_inference_mode_enabled()
        mods = list(module.modules())
        self.flags = [m.training for m in mods]
        # Training-mode layers on at the call (dropout p > 0, batch-norm).
        self.kinds = any(m.training and training_layer_kind(torch.nn, m) is not None
                         for m in mods)
        self.graph = graph
        self.forward_kind = None  # the registry's (root, batch rows): registry.forward_kind


def training_layers_on(torch, call: EvalCall) -> bool:
    return call.kinds


def _free_bytes(torch) -> int | None:
    if torch.cuda.is_initialized():
        dev = torch.cuda.current_device()
        return (torch.cuda.get_device_properties(dev).total_memory
                - torch.cuda.memory_allocated(dev))
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


@contextlib.contextmanager
def kept_state(torch, module):
    """Whatever a probe forward could change goes back as it was: the random
    number generators (dropout draws from them), every submodule's training
    flag, batch-norm running statistics (a training-mode forward updates them)."""
    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    py = random.getstate()
    # Only a numpy.random the program imported: importing it here, at exit,
    # would cost time and (as any import at exit does) turn Python's exit status
    # after an unhandled KeyboardInterrupt from -SIGINT into 1.
    npr = sys.modules.get("numpy.random")
    np_state = npr.get_state() if npr is not None else None
    flags = [(m, m.training) for m in module.modules()]
    bn = torch.nn.modules.batchnorm._NormBase
    with torch.no_grad():
        buffers = [(b, b.clone()) for m in module.modules() if isinstance(m, bn)
                   for b in m.buffers(recurse=False)]
    try:
        yield
    finally:
        for m, on in flags:
            m.training = on
        with torch.no_grad():
            for b, saved in buffers:
                b.copy_(saved)
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
        random.setstate(py)
        if np_state is not None:
            npr.set_state(np_state)


def batch_items(torch, value, depth: int = 0) -> int | None:
    """The batch size of a call's input: the leading size every tensor of it
    (nested plain tuples, lists and dicts) shares, when there are several rows
    to slice (None: no tensor, a 0-d one, sizes that differ, a container the
    probe could not rebuild with fewer rows)."""
    sizes: set = set()

    def walk(v, d: int) -> bool:
        if isinstance(v, torch.Tensor):
            if v.dim() == 0 or v.is_nested or v.layout != torch.strided:
                return False
            sizes.add(int(v.shape[0]))
            return True
        if type(v) in (tuple, list):
            return d <= 4 and all(walk(x, d + 1) for x in v)
        if type(v) is dict:
            return d <= 4 and all(walk(x, d + 1) for x in v.values())
        # Anything else holding a tensor (a dataclass, a BatchEncoding) would
        # keep its rows: refused; plain values (None, ints, strings) pass.
        return not _holds_tensor(torch, v)

    if not walk(value, depth) or len(sizes) != 1:
        return None
    n = sizes.pop()
    return n if n >= 2 else None


def _holds_tensor(torch, v) -> bool:
    if isinstance(v, (str, bytes, int, float, bool, type(None))):
        return False
    items = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple, set)) \
        else getattr(v, "__dict__", {}).values()
    try:
        return any(isinstance(x, torch.Tensor) for x in items)
    except Exception:  # noqa: BLE001 - an object whose attributes cannot be read
        return True


def first_rows(torch, value, k: int):
    """value with every tensor cut to its first k rows (views, no copy)."""
    if isinstance(value, torch.Tensor):
        return value[:k]
    if type(value) in (tuple, list):
        return type(value)(first_rows(torch, v, k) for v in value)
    if type(value) is dict:
        return {n: first_rows(torch, v, k) for n, v in value.items()}
    return value


def eval_probe(torch, call: EvalCall, *, forward_ns: float, elapsed_ns: int, asked: bool,
               graph_bytes: int = 0, max_graph_bytes: int | None = None) -> dict:
    """Times call's forward as it ran and with each applicable fix: grad off
    (torch.inference_mode()) when it built a graph, eval mode (every module's
    training flag off) when training-mode layers were on; all combinations, in
    the order V..V reversed per round (A B B A for two). Returns {"ns": {variant:
    min ns}, "calls": per variant, "spread": the largest (slowest - fastest) /
    fastest of a variant's timed calls} with variants "ran", "grad_off", "eval",
    "grad_off+eval", and "items"/"batch_items" when it timed the first rows of
    the batch only; or {"skipped": reason}. The root's own forward hooks (the
    agent's) and global hooks are bypassed, outputs freed inside the timed
    region of the variant's next call (freeing a graph is part of a step's
    cost), all of them before it returns; state restored.

    When the whole input's forwards would not fit the budget (time: a share of
    the run so far; memory: the graphs alive at once), the probe times the first
    rows of the batch instead, as many as fit: the saving is a share of the
    forward (probe_scale carries it to the run's forward), and a smaller batch
    saves no smaller a share of its forward by skipping autograd's per-op work
    (the same per op, over less work). The rounds then follow the warm-up pass's
    own times; the probe stops at twice its budget whatever happens.
    max_graph_bytes: the most the graphs alive at once may hold (a probe in the
    middle of the run must not raise its peak beyond a small bound)."""

    want_grad = call.graph and not call.inference
    want_train = training_layers_on(torch, call)
    if not want_grad and not want_train:
        return {"skipped": "nothing to fix on the kept call"}
    from fastenough import _core  # the one duration format (util/units.h)

    if forward_ns > EVAL_PROBE_MAX_FORWARD_NS:
        return {"skipped": f"one forward takes {_core.format_duration(forward_ns)}"}
    variants = ["ran"]
    if want_grad:
        variants.append("grad_off")
    if want_train:
        variants.append("eval")
    if want_grad and want_train:
        variants.append("grad_off+eval")
    share = EVAL_PROBE_SHARE_ASKED if asked else EVAL_PROBE_SHARE
    budget = min(EVAL_PROBE_MAX_NS, share * elapsed_ns)
    # A warm-up pass (each variant once: what it keeps is set up, not timed),
    # then rounds of V..V reversed: at least two timed calls per variant (one
    # was too few: a load spike during one call made a fix look slower).
    fwd_ns = max(forward_ns, 1.0)
    need = 3 * len(variants) * fwd_ns  # the warm-up pass and one round
    rows = batch_items(torch, (call.args, call.kwargs))
    fit = 1.0  # the share of the batch that fits the budget (time and memory)
    over = None  # what the whole batch would pass
    if need > budget:
        fit = budget / need
        over = (f"{_core.format_duration(need)} of probe forwards would exceed "
                f"{share:.0%} of the run ({_core.format_duration(budget)})")
    free = _free_bytes(torch)
    # Up to three graphs alive at once: the last of "ran" and of "eval", and a new one.
    mem = 3 * graph_bytes
    if want_grad and graph_bytes and free is not None and mem > EVAL_PROBE_FREE_SHARE * free \
            and EVAL_PROBE_FREE_SHARE * free / mem < fit:
        fit = EVAL_PROBE_FREE_SHARE * free / mem
        over = (f"three graphs of a forward ({mem >> 20} MiB) are over "
                f"{EVAL_PROBE_FREE_SHARE:.0%} of the free memory")
    # Rows by time: a forward has a fixed part that does not shrink with them,
    # hence the margin (the warm-up pass's times decide the rounds); by memory:
    # a graph's bytes go with its rows.
    k = (int(rows * fit / EVAL_PROBE_ROWS_MARGIN) if over is not None else rows) if rows else 0
    if want_grad and graph_bytes and max_graph_bytes is not None and mem > max_graph_bytes:
        over = over or (f"three graphs of a forward ({mem >> 20} MiB) are over the "
                        f"probe's {max_graph_bytes >> 20} MiB in the middle of the run")
        k = min(k, int(rows * max_graph_bytes / mem)) if rows else 0
    items = None
    if over is not None:
        if k < 1:
            # "budget": over the time budget alone (no forward ran): a later
            # phase edge, with more of the run behind it, may have room.
            return {"skipped": over + ("; the input has no batch of several rows to time "
                                       "fewer of" if not rows else
                                       f", even for 1 of its {rows} rows"),
                    "budget": over.endswith(f"({_core.format_duration(budget)})")}
        items = k
    module = call.ref()
    if module is None:
        return {"skipped": "the model was freed before exit"}
    args, kwargs = call.args, call.kwargs
    if items is not None:
        args, kwargs = first_rows(torch, args, items), first_rows(torch, kwargs, items)
    mods = list(module.modules())
    if len(mods) != len(call.flags):
        return {"skipped": "the model's modules changed after the kept call"}
    flags = list(zip(mods, call.flags, strict=True))
    fwd = module.forward  # not module(): the root's hooks (the agent's) stay out

    # Each variant's last output lives until its next call has returned, as a
    # loop's `logits = model(x)` keeps the last one: its graph is freed inside
    # the next step, and the next forward allocates while it is alive; the
    # probe's forward is then the loop's (the rest of the gap between the
    # probe's fastest calls and the run's median is probe_scale's).
    held: dict = {}

    def run(variant: str) -> int:
        fix_grad = variant.startswith("grad_off")
        ctx = (torch.inference_mode() if fix_grad or call.inference
               else torch.set_grad_enabled(call.grad))
        for m, on in flags:
            m.training = on and not variant.endswith("eval")
        with ctx:
            _sync(torch)
            t0 = time.perf_counter_ns()
            out = fwd(*args, **kwargs)
            old = held.pop(variant, None)
            held[variant] = out
            del old, out
            _sync(torch)
            return time.perf_counter_ns() - t0

    times: dict = {v: [] for v in variants}
    order = variants + variants[::-1]
    start = time.perf_counter_ns()
    deadline = start + 2 * budget
    # Not warnings.catch_warnings(): leaving it clears every once-per-location
    # registry, and the program's warnings printed once would print again after a
    # probe at a phase edge (quiet_warnings.py).
    with kept_state(torch, module), muted_global_hooks(), ignoring_warnings():
        try:
            warm = sum(run(v) for v in variants)
            # The rounds that fit what is left of the budget, by the warm-up
            # pass's own times (at least one; the deadline stops the rest; the
            # warm-up carries first calls' one-off costs: it over-predicts).
            left = budget - (time.perf_counter_ns() - start)
            rounds = max(1, min(EVAL_PROBE_ROUNDS, int(left // max(2 * warm, 1))))
            if time.perf_counter_ns() > deadline:
                return {"skipped": f"the probe's warm-up forwards took "
                                   f"{_core.format_duration(warm)}, past twice its budget "
                                   f"({_core.format_duration(budget)})"}
            for _ in range(rounds):
                for v in order:
                    times[v].append(run(v))
                if time.perf_counter_ns() > deadline:
                    break
        finally:
            held.clear()
    res = {"ns": {v: min(t) for v, t in times.items()},
           "calls": min(len(t) for t in times.values()),
           "spread": max((max(t) - min(t)) / max(min(t), 1) for t in times.values())}
    if items is not None:
        res["items"], res["batch_items"] = items, rows
    return res


def eval_savings(res: dict, forward_ns: float = 0) -> dict:
    """The decide numbers of the two findings from eval_probe's times. Each fix
    is priced at the most it saves in either order (alone, or after the other
    fix): their gains do not add up (the fused path needs both), and the most of
    each bounds what the two save together, since grad_off + its rest equals
    both. forward_ns, the median forward of the run (as the agent timed it),
    gives probe_scale: the probe's differences are shares of the forward as it
    ran at exit (fastest calls, a quiet process), the run's forwards were timed
    under the run's own load; the C++ core scales the difference by it."""
    ns = res.get("ns") or {}
    out: dict = {}
    ran = ns.get("ran")
    if not ran or not all(ns.values()):
        return out
    both = ns.get("grad_off+eval")
    if "grad_off" in ns:
        pairs = [(ran, ns["grad_off"])]
        if both is not None:
            pairs.append((ns["eval"], both))
        slow, fast = max(pairs, key=lambda p: p[0] - p[1])
        out["autograd"] = {"probe_grad_ns": slow, "probe_inference_ns": fast}
    if "eval" in ns:
        pairs = [(ran, ns["eval"])]
        if both is not None:
            pairs.append((ns["grad_off"], both))
        slow, fast = max(pairs, key=lambda p: p[0] - p[1])
        out["train"] = {"probe_train_ns": slow, "probe_eval_ns": fast}
    for d in out.values():
        d["probe_calls"] = res.get("calls", 0)
        d["probe_as_ran_ns"] = ran
        if res.get("items"):
            # Timed on the first rows of the batch: the saving is that forward's
            # share, carried to the run's forward by probe_scale.
            d["probe_items"] = res["items"]
            d["probe_batch_items"] = res.get("batch_items")
        if res.get("spread") is not None:
            d["probe_spread"] = res["spread"]
        if both is not None:
            d["probe_both_fixed_ns"] = both
        if forward_ns > 0:
            d["probe_forward_median_ns"] = forward_ns
            d["probe_scale"] = forward_ns / ran
    return out
