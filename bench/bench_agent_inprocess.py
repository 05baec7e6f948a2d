"""Cost of the agent's hooks per step of a CPU model loop, measured inside one process.

Run it under `fastenough run` (the agent must be loaded):

    fastenough run --no-trace --no-history --quiet -- python bench/bench_agent_inprocess.py
    ... python bench/bench_agent_inprocess.py --model lm

Process-level A/B runs (bench_run_overhead.py) carry a per-process spread of
+-20% on a shared virtual machine: the same plain program's steady step varies
that much from one process to the next, which hides a 1% effect. Here one
process times single steps in pairs, in alternating order (A B, B A, ...):
B with every hook the agent and its checks keep on the model in a real run,
A with the model's hook dictionaries emptied, so the call takes torch's no-hook
fast path as it does without the agent. Before timing, the loop runs until the
agent is in its steady phase, past the checks' sync-watch sample, with its
native hook deferring (what a long steady loop looks like).

Most steps are deferred (the native hook records them); now and then a call is
live (every 64th model call, or once a second, the agent's Python code runs:
it replays the deferred steps and the checks examine that call). The two are
told apart by the hook's counter and reported separately: for deferred steps
the median and the trimmed mean (10% off each end) of the paired differences
B - A in microseconds, for live ones their median and count. The cost per step
weighs them by how often each happened; ratio = 1 + cost / median plain step.

With --floor (plain python, no agent) the same pairs time one empty Python
pre-hook on the model: what any hook-based step detection costs on this loop.

Models: mlp (6 MLP blocks, batch 64, one thread: ~3.5 ms a step) and lm (a
small transformer language-model scorer over 8 x 64 token ids).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch
from bench_models import make

from fastenough.agent import runtime

HOOK_DICTS = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
              "_forward_hooks_with_kwargs", "_forward_hooks_always_called")


def loaded_agent():
    agent = runtime.get_agent()
    if agent is None:
        raise SystemExit("run this under `fastenough run` (no agent loaded)")
    return agent


def trimmed_mean(values: list) -> float:
    """Mean without the 10% lowest and 10% highest (sorts values)."""
    values.sort()
    cut = len(values) // 10
    return statistics.fmean(values[cut:len(values) - cut])


def detach(model) -> dict:
    saved = {name: dict(getattr(model, name)) for name in HOOK_DICTS}
    for name in HOOK_DICTS:
        getattr(model, name).clear()
    return saved


def attach(model, saved: dict) -> None:
    for name, hooks in saved.items():
        getattr(model, name).update(hooks)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", choices=["mlp", "lm"], default="mlp")
    p.add_argument("--pairs", type=int, default=1500, help="pairs of timed steps")
    p.add_argument("--floor", action="store_true",
                   help="no agent: time one do-nothing Python pre-hook instead (plain python)")
    p.add_argument("--loop", choices=["model", "dataloader", "train"], default="model",
                   help="model: the loop calls the model (steps from its calls, the default "
                        "measured above); dataloader: for x in DataLoader (steps from the "
                        "loader); train: forward, backward, optimizer.step() (steps from the "
                        "optimizer)")
    args = p.parse_args()
    if args.floor:
        return floor(args)
    if args.loop == "dataloader":
        return dataloader_loop(args)
    if args.loop == "train":
        return train_loop(args)
    agent = loaded_agent()
    model, x = make(args.model)
    pc = time.perf_counter_ns
    diffs, plain = [], []
    with torch.inference_mode():
        for _ in range(400):
            model(x).sum().item()
            hook = agent.model_calls.step_hook
            if hook is not None and hook.deferring:
                break
        hook = agent.model_calls.step_hook
        if hook is None or not hook.deferring:
            raise SystemExit(f"the agent does not defer (phase {agent.phases.phase}); "
                             "nothing steady to measure")
        live_diffs = []
        for i in range(args.pairs):
            t = {}
            live = False
            for kind in ("AB" if i % 2 == 0 else "BA"):
                saved = detach(model) if kind == "A" else None
                n = hook.deferred_calls
                t0 = pc()
                model(x).sum().item()
                t[kind] = pc() - t0
                if saved is not None:
                    attach(model, saved)
                elif hook.deferred_calls == n:
                    live = True  # this call ran the agent's Python code
            (live_diffs if live else diffs).append(t["B"] - t["A"])
            plain.append(t["A"])
    trimmed = trimmed_mean(diffs)
    live_cost = statistics.median(live_diffs) if live_diffs else 0.0
    share = len(live_diffs) / args.pairs
    cost = (1 - share) * trimmed + share * live_cost
    step = statistics.median(plain)
    print(json.dumps({
        "model": args.model, "pairs": args.pairs,
        "deferred_median_cost_us": round(statistics.median(diffs) / 1e3, 1),
        "deferred_trimmed_mean_cost_us": round(trimmed / 1e3, 1),
        "live_calls": len(live_diffs),
        "live_median_cost_us": round(live_cost / 1e3, 1),
        "cost_us_per_step": round(cost / 1e3, 1),
        "plain_step_ms": round(step / 1e6, 3),
        "ratio": round(1 + cost / step, 4),
        "steps_recorded": agent.steps.index + hook.pending,
        "target": "<= 1.01"}))


class Repeat(torch.utils.data.Dataset):
    """The same ready batch again and again (batch_size=None: no collation)."""

    def __init__(self, x, n: int) -> None:
        self.x, self.n = x, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return self.x


def time_pairs(step, off, on, pairs: int) -> tuple[list, list]:
    """Times `step` in pairs, A B then B A: A between off() and on() (which
    returns what off() returned), B as is. Returns the B - A differences and
    the A times, in ns."""
    pc = time.perf_counter_ns
    diffs, plain = [], []
    for i in range(pairs):
        t = {}
        for kind in ("AB" if i % 2 == 0 else "BA"):
            saved = off() if kind == "A" else None
            t0 = pc()
            step()
            t[kind] = pc() - t0
            if kind == "A":
                on(saved)
        diffs.append(t["B"] - t["A"])
        plain.append(t["A"])
    return diffs, plain


def report(args, loop: str, diffs: list, plain: list, **extra) -> None:
    trimmed = trimmed_mean(diffs)
    step = statistics.median(plain)
    print(json.dumps({"model": args.model, "loop": loop, "pairs": args.pairs,
                      "median_cost_us": round(statistics.median(diffs) / 1e3, 1),
                      "trimmed_mean_cost_us": round(trimmed / 1e3, 1),
                      "plain_step_ms": round(step / 1e6, 3),
                      "ratio": round(1 + trimmed / step, 4), **extra}))


def dataloader_loop(args) -> None:
    """Steps from DataLoader iteration: the agent wraps the loader iterator's
    __next__ (class-wide) and the checks keep a hook on the model. A: the
    original __next__ and no hooks on the model; B: both as in a real run."""
    from torch.utils.data import DataLoader
    from torch.utils.data.dataloader import _BaseDataLoaderIter

    agent = loaded_agent()
    model, x = make(args.model)
    it = iter(DataLoader(Repeat(x, 10**9), batch_size=None))
    wrapped = _BaseDataLoaderIter.__next__

    def off():
        _BaseDataLoaderIter.__next__ = wrapped.__wrapped__
        return detach(model)

    def on(saved):
        attach(model, saved)
        _BaseDataLoaderIter.__next__ = wrapped

    with torch.inference_mode():
        for _ in range(80):
            model(next(it)).sum().item()
        if agent.phases.phase != "steady" or agent.engine.current != runtime.SRC_DATALOADER:
            raise SystemExit(f"not a steady DataLoader loop (phase {agent.phases.phase})")
        diffs, plain = time_pairs(lambda: model(next(it)).sum().item(), off, on, args.pairs)
    report(args, "dataloader", diffs, plain, target="<= 1.01")


def train_loop(args) -> None:
    """Steps from optimizer.step(): the agent's global optimizer post-hook, and
    the checks' hook on the model (and autograd.backward counted). A: no
    optimizer hook, no model hooks, the original backward; B: as in a run."""
    import torch.optim.optimizer as optim_mod

    agent = loaded_agent()
    model, x = make(args.model)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    hooks = optim_mod._global_optimizer_post_hooks
    counted = torch.autograd.backward
    original = getattr(counted, "__wrapped__", counted)

    def step():
        opt.zero_grad(set_to_none=True)
        model(x).pow(2).mean().backward()
        opt.step()

    def off():
        saved = detach(model), dict(hooks)
        hooks.clear()
        torch.autograd.backward = original
        return saved

    def on(saved):
        attach(model, saved[0])
        hooks.update(saved[1])
        torch.autograd.backward = counted

    for _ in range(80):
        step()
    if agent.phases.phase != "steady" or agent.engine.current != runtime.SRC_OPTIMIZER:
        raise SystemExit(f"not a steady optimizer loop (phase {agent.phases.phase})")
    diffs, plain = time_pairs(step, off, on, args.pairs)
    report(args, "train", diffs, plain, target="<= 1.01")


def floor(args) -> None:
    """What any forward pre-hook costs on this loop: torch's module call takes its
    slower path as soon as a model has one hook, and runs a Python function."""
    if runtime.get_agent() is not None:
        raise SystemExit("--floor measures without the agent: run it with plain python")
    model, x = make(args.model)
    model.register_forward_pre_hook(lambda m, a, k: None, with_kwargs=True)
    with torch.inference_mode():
        for _ in range(100):
            model(x).sum().item()
        diffs, plain = time_pairs(lambda: model(x).sum().item(), lambda: detach(model),
                                  lambda saved: attach(model, saved), args.pairs)
    report(args, "model", diffs, plain, floor="one empty pre-hook")


if __name__ == "__main__":
    main()
