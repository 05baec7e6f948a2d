"""The agent inside real torch programs (CPU): step sources, phases, memory."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agent_run_helper import check_balanced, run_under_agent  # noqa: E402

MODEL = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
"""


def _assert_contiguous(steps: list[dict]) -> None:
    assert [s["index"] for s in steps] == list(range(len(steps)))
    for a, b in zip(steps, steps[1:], strict=False):
        assert a["end_mono_ns"] <= b["start_mono_ns"]
    for s in steps:
        assert s["start_mono_ns"] < s["end_mono_ns"]
        assert s["start_wall_ns"] < s["end_wall_ns"]


def test_model_call_loop(tmp_path):
    r = run_under_agent(tmp_path, MODEL + """
x = torch.randn(5, 32)
with torch.no_grad():
    for i in range(12):
        model(x).sum().item()
print("ok")
""")
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip() == "ok"
    steps = r.steps
    assert len(steps) == 12
    assert {s["source"] for s in steps} == {"module"}
    assert {s["items"] for s in steps} == {5}
    assert {s["tokens"] for s in steps} == {None}  # float input: no tokens
    _assert_contiguous(steps)
    seq = r.auto_sequence()
    assert seq[:3] == [("startup", "begin"), ("startup", "end"), ("warmup", "begin")]
    assert seq[-2:] == [("tail", "begin"), ("tail", "end")]
    check_balanced(r.phases)
    # The first step begins exactly where warmup begins.
    warm = [p for p in r.phases if p["phase"] == "warmup" and p["edge"] == "begin"][0]
    assert steps[0]["start_mono_ns"] == warm["mono_ns"]
    agent = r.main_agent()
    assert agent["role"] == "main" and agent["torch"] and agent["agent_error"] is None
    assert agent["steps"] == 12 and agent["step_source"] == "module"
    assert agent["profile"] is None  # trace off


def test_model_calls_follow_the_main_model(tmp_path):
    # A loss module called at top level after the model is no step of its own, before
    # and after the agent moves its hooks from every module to the main model alone.
    r = run_under_agent(tmp_path, MODEL + """
loss = torch.nn.MSELoss()
x, y = torch.randn(7, 32), torch.randn(7, 4)
with torch.no_grad():
    for i in range(10):
        loss(model(x), y).item()
""")
    assert r.proc.returncode == 0, r.proc.stderr
    steps = r.steps
    assert len(steps) == 10
    assert {s["items"] for s in steps} == {7}
    _assert_contiguous(steps)


def test_explicit_phases(tmp_path):
    r = run_under_agent(tmp_path, MODEL + """
import fastenough

@fastenough.phase("prepare")
def prepare():
    return torch.randn(3, 32)

with fastenough.phase("load"):
    x = prepare()
with fastenough.phase("score"):
    for _ in range(4):
        model(x)
""")
    assert r.proc.returncode == 0, r.proc.stderr
    user = [(p["phase"], p["edge"]) for p in r.phases if not p["auto"]]
    assert user == [("load", "begin"), ("prepare", "begin"), ("prepare", "end"),
                    ("load", "end"), ("score", "begin"), ("score", "end")]
    check_balanced(r.phases)
    assert len(r.steps) == 4


def test_dataloader_loop(tmp_path):
    r = run_under_agent(tmp_path, MODEL + """
from torch.utils.data import DataLoader, Dataset

class Tokens(Dataset):
    def __len__(self):
        return 20
    def __getitem__(self, i):
        return {"input_ids": torch.full((12,), i, dtype=torch.long), "x": torch.randn(32)}

loader = DataLoader(Tokens(), batch_size=8)   # batches of 8, 8, 4
for epoch in range(2):
    for batch in loader:
        model(batch["x"])
""")
    assert r.proc.returncode == 0, r.proc.stderr
    steps = r.steps
    assert len(steps) == 6
    assert {s["source"] for s in steps} == {"dataloader"}
    assert [s["items"] for s in steps] == [8, 8, 4, 8, 8, 4]
    assert [s["tokens"] for s in steps] == [96, 96, 48, 96, 96, 48]
    _assert_contiguous(steps)
    check_balanced(r.phases)


def test_optimizer_loop(tmp_path):
    r = run_under_agent(tmp_path, MODEL + """
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(6, 32), torch.randn(6, 4)
for i in range(9):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
""")
    assert r.proc.returncode == 0, r.proc.stderr
    steps = r.steps
    assert len(steps) == 9
    assert {s["source"] for s in steps} == {"optimizer"}
    _assert_contiguous(steps)
    # Step 0 began at the first model call, which ended startup.
    start_end = [p for p in r.phases if p["phase"] == "startup" and p["edge"] == "end"][0]
    assert steps[0]["start_mono_ns"] >= start_end["mono_ns"]
    check_balanced(r.phases)
    assert r.main_agent()["step_source"] == "optimizer"


def test_explicit_step_overrides_automatic(tmp_path):
    r = run_under_agent(tmp_path, MODEL + """
import fastenough
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(3, 32)
for i in range(7):
    model(x).sum().backward()
    opt.step()
    fastenough.step(items=3, tokens=30 + i)
""")
    assert r.proc.returncode == 0, r.proc.stderr
    steps = r.steps
    assert len(steps) == 7
    assert {s["source"] for s in steps} == {"explicit"}
    assert [s["tokens"] for s in steps] == [30, 31, 32, 33, 34, 35, 36]
    assert {s["items"] for s in steps} == {3}
    _assert_contiguous(steps)


def test_explicit_steps_alone(tmp_path):
    # No DataLoader, optimizer or model: step 0 starts when torch was imported.
    r = run_under_agent(tmp_path, """
import time, torch, fastenough
for i in range(6):
    time.sleep(0.01)
    fastenough.step()
""")
    assert r.proc.returncode == 0, r.proc.stderr
    steps = r.steps
    assert len(steps) == 6
    _assert_contiguous(steps)
    assert all(s["end_mono_ns"] - s["start_mono_ns"] >= 10_000_000 for s in steps)


def _agent(**opts):
    from fastenough.agent.bootstrap import parse_opts
    from fastenough.agent.runtime import Agent

    o = parse_opts(None)
    o.update(opts)
    return Agent("/nonexistent", o, "main", 0, 0)


def test_warmup_settles_on_three_close_steps():
    a = _agent(warmup_steps=3)
    ms = 1_000_000
    a.phases.durations = [900 * ms, 100 * ms]
    assert not a.phases._settled(a.phases.durations)  # fewer than 3 steps
    a.phases.durations.append(101 * ms)
    assert not a.phases._settled(a.phases.durations)  # 900 is far from the median 101
    a.phases.durations.append(119 * ms)
    assert a.phases._settled(a.phases.durations)  # 100, 101, 119: all within 20% of 101
    a.phases.durations.append(200 * ms)
    assert not a.phases._settled(a.phases.durations)  # 101, 119, 200: median 119, 200 is 68% off


def test_warmup_minimum_and_cap():
    ms = 1_000_000
    a = _agent(warmup_steps=5, warmup_max=8)
    a.phases.durations = [10 * ms] * 4
    assert not a.phases._settled(a.phases.durations)  # settled, but fewer than warmup_steps
    a.phases.durations.append(10 * ms)
    assert a.phases._settled(a.phases.durations)
    b = _agent(warmup_steps=3, warmup_max=8)
    b.phases.durations = [10 * ms, 50 * ms] * 3 + [10 * ms]
    assert not b.phases._settled(b.phases.durations)  # 7 steps that never settle
    b.phases.durations.append(50 * ms)
    assert b.phases._settled(b.phases.durations)  # the cap


def test_warmup_ends_on_noisy_but_flat_step_times():
    ms = 1_000_000
    a = _agent(warmup_steps=3, warmup_max=20)
    a.phases.durations = [10 * ms, 13 * ms, 8 * ms, 11 * ms, 7 * ms]
    # 8, 11, 7: 11 is 37% off the median 8; 5 steps, no trend test
    assert not a.phases._settled(a.phases.durations)
    a.phases.durations.append(12 * ms)
    # 11, 7, 12 still jitter (median 11), but the triple before (10, 13, 8) has
    # median 10, within 15%: no trend left, warm-up is over.
    assert a.phases._settled(a.phases.durations)
    b = _agent(warmup_steps=3, warmup_max=20)
    b.phases.durations = [40 * ms, 30 * ms, 20 * ms, 14 * ms, 9 * ms, 6 * ms]
    assert not b.phases._settled(b.phases.durations)  # still falling: medians 30 then 9


def test_torch_compile_is_counted_and_not_disturbed(tmp_path):
    # backend="eager": dynamo only, no C++ compiler needed. Shapes 2 then 3 make one
    # recompile (dynamic shapes); the agent's hooks must add none.
    r = run_under_agent(tmp_path, """
import torch
m = torch.nn.Linear(8, 8)
f = torch.compile(m, backend="eager")
for n in (2, 3, 4, 5, 6, 7):
    f(torch.randn(n, 8))
""")
    assert r.proc.returncode == 0, r.proc.stderr
    assert "global hooks" not in r.proc.stderr
    comp = r.main_agent()["compile"]
    assert comp["compiles"] == 2 and comp["recompiles"] == 1
    assert comp["compile_time_ns"] > 0
    steps = r.steps
    assert [s["items"] for s in steps] == [2, 3, 4, 5, 6, 7]


def test_record_writes_safetensors(tmp_path):
    import json as _json
    import struct

    r = run_under_agent(tmp_path, """
import torch, fastenough
t = torch.tensor([[1.5, -2.0, 3.25]], dtype=torch.float32)
assert fastenough.record("my scores/1", t) is t
fastenough.record("ids", torch.tensor([7, 8], dtype=torch.int64))
""")
    assert r.proc.returncode == 0, r.proc.stderr
    # Both keys in one shard (written at exit), in the order recorded.
    raw = (r.dir / "outputs" / "records-00000.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0
    header = _json.loads(raw[8 : 8 + n])
    assert header == {"my scores/1": {"dtype": "F32", "shape": [1, 3], "data_offsets": [0, 12]},
                      "ids": {"dtype": "I64", "shape": [2], "data_offsets": [12, 28]}}
    assert struct.unpack("<3f2q", raw[8 + n :]) == (1.5, -2.0, 3.25, 7, 8)


def test_memory_and_sync_with_an_initialised_device():
    # No GPU here: a stand-in for torch.cuda checks which calls the agent makes.
    from types import SimpleNamespace

    calls = []
    cuda = SimpleNamespace(
        is_initialized=lambda: True,
        synchronize=lambda: calls.append("sync"),
        current_device=lambda: 1,
        memory_allocated=lambda: 100,
        memory_reserved=lambda: 200,
        max_memory_allocated=lambda: 150,
        max_memory_reserved=lambda: 250,
        reset_peak_memory_stats=lambda: calls.append("reset"),
    )
    from fastenough.agent import memory

    torch = SimpleNamespace(cuda=cuda)
    assert memory.sync(torch) is True and calls == ["sync"]
    mem = memory.snapshot(torch)
    assert mem["device"] == "cuda:1"
    assert (mem["allocated_bytes"], mem["reserved_bytes"]) == (100, 200)
    assert (mem["alloc_peak_bytes"], mem["reserved_peak_bytes"]) == (150, 250)
    assert mem["rss_bytes"] > 0
    memory.reset_peaks(torch)
    assert calls == ["sync", "reset"]
    # A program that never initialised CUDA: no call at all (it would initialise it).
    cuda.is_initialized = lambda: False
    calls.clear()
    memory.sync(torch)
    memory.reset_peaks(torch)
    assert calls == [] and memory.snapshot(torch)["device"] == "cpu"
