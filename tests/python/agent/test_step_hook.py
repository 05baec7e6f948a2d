"""fastenough._core.StepHook, the native pre-hook that defers the agent's per-step
work: what it records, when it calls Python, from real torch model calls."""

from __future__ import annotations

import threading
import time

import pytest

torch = pytest.importorskip("torch")

from fastenough.agent import step_hook  # noqa: E402


class Recorder:
    """The live Python side: notes each call it is sent."""

    def __init__(self):
        self.calls = []
        self.fallback = []

    def pre(self, module, args, kwargs):
        self.calls.append((args, dict(kwargs or {})))

    def batch_size(self, batch):
        self.fallback.append(batch)
        return 7, None


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(20, 4)
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x=None, input_ids=None):
        if input_ids is not None:
            return self.emb(input_ids).sum()
        if isinstance(x, list):
            x = x[0]
        if x.is_floating_point():
            return self.lin(x).sum()
        return self.emb(x).sum()


def hooked(record=True):
    rec = Recorder()
    hook = step_hook.make(rec.pre, record=record, batch_size=rec.batch_size)
    assert hook is not None, "the native module has no StepHook"
    model = Model().eval()
    model.register_forward_pre_hook(hook.pre, with_kwargs=True)
    return model, hook, rec


def test_not_deferring_sends_every_call_to_python():
    model, hook, rec = hooked()
    x = torch.randn(3, 4)
    for _ in range(4):
        model(x)
    assert len(rec.calls) == 4
    assert hook.pending == 0 and hook.deferred_calls == 0
    assert hook.drain() == []


def test_deferred_records_time_and_batch_size():
    model, hook, rec = hooked()
    hook.deferring = True
    ids = torch.randint(0, 20, (2, 5))
    before = time.monotonic_ns(), time.time_ns()
    model(torch.randn(3, 4))  # float, 2-D: items, no tokens
    model(ids)  # integer, 2-D: token ids
    model(input_ids=ids)  # keyword input_ids
    model(torch.randint(0, 20, (6,)))  # 1-D integer: items only
    model([torch.randn(9, 4)])  # a list: the Python function decides
    after = time.monotonic_ns(), time.time_ns()
    assert rec.calls == []  # nothing went to Python
    assert hook.deferred_calls == 5 and hook.pending == 5
    got = hook.drain()
    assert [(items, tokens) for _, _, items, tokens in got] == [
        (3, None), (2, 10), (2, 10), (6, None), (7, None)]
    assert len(rec.fallback) == 1 and isinstance(rec.fallback[0], tuple)
    monos = [g[0] for g in got]
    assert monos == sorted(monos) and before[0] <= monos[0] and monos[-1] <= after[0]
    assert all(before[1] - 10**9 <= g[1] <= after[1] + 10**9 for g in got)
    assert hook.pending == 0 and hook.drain() == []


def test_live_every_capacity_and_age():
    model, hook, rec = hooked()
    x = torch.randn(1, 4)
    hook.live_every = 4
    hook.deferring = True
    for _ in range(12):
        model(x)
    assert len(rec.calls) == 3  # calls 4, 8, 12
    assert hook.deferred_calls == 9
    hook.drain()
    hook.live_every = 0
    hook.capacity = 2
    for _ in range(3):
        model(x)
    assert len(rec.calls) == 4  # the third found the buffer full
    hook.drain()
    hook.capacity = 1000
    hook.max_age_ns = 0
    model(x)
    assert len(rec.calls) == 5  # no age allowed: live


def test_count_only_and_other_threads():
    model, hook, rec = hooked(record=False)
    hook.deferring = True
    x = torch.randn(2, 4)
    model(x)
    assert hook.deferred_calls == 1 and hook.pending == 0 and rec.calls == []
    t = threading.Thread(target=model, args=(x,))
    t.start()
    t.join()
    assert len(rec.calls) == 1  # another thread: Python decides
    assert hook.deferred_calls == 1


def test_one_shot_post_runs_once_and_survives_a_raising_forward():
    model = Model().eval()
    seen = []
    step_hook.one_shot_post(model, lambda m, a, o: seen.append(o))
    model(torch.randn(1, 4))
    model(torch.randn(1, 4))
    assert len(seen) == 1 and not model._forward_hooks

    class Ident(torch.nn.Module):
        def forward(self, x):
            return x

    def fails(m, a, o):
        raise ValueError("the program's own error")

    m = Ident()
    # A forward hook that fails after forward makes torch run the remaining
    # always-call hooks over the hook dictionary itself, not over a copy.
    m.register_forward_hook(fails)
    step_hook.one_shot_post(m, lambda m, a, o: seen.append("post"))
    with pytest.raises(ValueError, match="the program's own error"):
        m(torch.randn(1))
    assert seen[-1] == "post"
    assert len(m._forward_hooks) == 2  # spent, not removed inside that loop
    m._forward_hooks.pop(next(iter(m._forward_hooks)))  # the failing hook goes
    m(torch.randn(1))  # the spent one-shot removes itself, without running again
    assert len(m._forward_hooks) == 0 and seen.count("post") == 1
