"""Long model-call loops, where the agent defers steady steps to its native hook
(agent/step_hook.py): the steps, batch sizes and checks come out the same as with
the Python hooks alone, and the program's own errors and torch.compile pass."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agent_run_helper import check_balanced, run_under_agent  # noqa: E402

# 300 calls of a masked scorer with keyword arguments; batch rows and widths
# vary; call 200 raises inside forward and the program carries on.
LOOP = """
import torch
torch.manual_seed(0)

class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 16)
        self.out = torch.nn.Linear(16, 1)
        self.fail = False

    def forward(self, input_ids, attention_mask=None):
        if self.fail:
            raise ValueError("bad batch")
        h = self.emb(input_ids) * attention_mask[..., None]
        return self.out(h.sum(1)).squeeze(-1)

model = Scorer().eval()
errors = 0
with torch.inference_mode():
    for i in range(300):
        rows, width = (3 if i % 9 == 0 else 4), 6 + i % 5
        ids = torch.randint(1, 50, (rows, width))
        mask = torch.ones(rows, width, dtype=torch.long)
        mask[:, width - 1 - i % 3:] = 0
        model.fail = i == 200
        try:
            model(input_ids=ids, attention_mask=mask).sum().item()
        except ValueError:
            errors += 1
print("ok", errors)
"""

OPTS = {"trace": False, "sync_watch_steps": 4}


def _run(tmp_path, defer: bool):
    tmp_path.mkdir()
    r = run_under_agent(tmp_path, LOOP, dict(OPTS, defer_steps=defer))
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.split() == ["ok", "1"], r.proc.stdout + r.proc.stderr
    assert "Traceback" not in r.proc.stderr and "leaked" not in r.proc.stderr
    return r


def test_deferred_steps_match_python_steps(tmp_path):
    fast = _run(tmp_path / "defer", True)
    slow = _run(tmp_path / "python", False)
    assert fast.main_agent()["steps_deferred"] > 200
    assert slow.main_agent()["steps_deferred"] == 0
    assert fast.main_agent()["agent_error"] is None
    for r in (fast, slow):
        steps = r.steps
        assert [s["index"] for s in steps] == list(range(len(steps)))
        for a, b in zip(steps, steps[1:], strict=False):
            assert a["end_mono_ns"] <= b["start_mono_ns"]
        check_balanced(r.phases)
    # The Python hooks see the end of the last call; the deferring hook has no
    # post-hook, so the step still open at exit is dropped.
    assert len(slow.steps) == 300
    assert len(fast.steps) in (299, 300)
    want = [(3 if i % 9 == 0 else 4, (3 if i % 9 == 0 else 4) * (6 + i % 5)) for i in range(300)]
    counts = {id(r): [(s["items"], s["tokens"]) for s in r.steps] for r in (fast, slow)}
    assert counts[id(fast)] == counts[id(slow)][:len(fast.steps)]
    # (The first calls, before the agent hooks the model itself, are seen by
    # torch's global hooks, which get no keyword arguments.)
    assert counts[id(slow)][3:] == want[3:]
    for r in (fast, slow):
        assert [s["phase"] for s in r.steps][-50:] == ["steady"] * 50
    # The checks count every call, and examine a sample of them once deferring.
    cf, cs = (__import__("json").loads((r.dir / "checks.json").read_text())
              for r in (fast, slow))
    assert cf["forwards"] == cs["forwards"] == 300
    assert cs["forwards_examined"] < 300  # sampling after the first steady steps
    assert 10 < cf["forwards_examined"] < cs["forwards_examined"] + 10
    assert cf["padding"]["batches"] >= 10


def test_compile_after_deferring_goes_back_to_python_hooks(tmp_path):
    r = run_under_agent(tmp_path, """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()).eval()
x = torch.randn(4, 8)
with torch.inference_mode():
    for _ in range(120):
        eager = model(x)
compiled = torch.compile(model, backend="eager")
with torch.inference_mode():
    outs = [compiled(x) for _ in range(100)]
assert all(torch.equal(o, eager) for o in outs)
print("ok")
""", dict(OPTS))
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip() == "ok"
    agent = r.main_agent()
    assert agent["agent_error"] is None
    assert agent["steps_deferred"] > 50
    assert agent["compile"]["compiles"] >= 1


DL_LOOP = """
import torch
from torch.utils.data import DataLoader
torch.manual_seed(0)

class Batches(torch.utils.data.Dataset):
    def __len__(self):
        return 250

    def __getitem__(self, i):
        rows, width = (3 if i % 9 == 0 else 4), 6 + i % 5
        return {"input_ids": torch.randint(1, 50, (rows, width)),
                "attention_mask": torch.ones(rows, width, dtype=torch.long)}

class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 16)

    def forward(self, input_ids, attention_mask=None):
        return (self.emb(input_ids) * attention_mask[..., None]).sum()

model = Scorer().eval()
with torch.inference_mode():
    for epoch in range(2):
        for batch in DataLoader(Batches(), batch_size=None):
            model(**batch).item()
print("ok")
"""


def _both(tmp_path, program):
    """The program with deferral on and off: (deferring run, Python-only run)."""
    runs = []
    for defer in (True, False):
        d = tmp_path / str(defer)
        d.mkdir()
        r = run_under_agent(d, program, dict(OPTS, defer_steps=defer))
        assert r.proc.returncode == 0, r.proc.stderr
        assert r.proc.stdout.startswith("ok") and "Traceback" not in r.proc.stderr
        runs.append(r)
    return runs


def test_dataloader_steps_deferred_match_python_steps(tmp_path):
    fast, slow = _both(tmp_path, DL_LOOP)
    assert fast.main_agent()["steps_deferred"] > 300
    assert slow.main_agent()["steps_deferred"] == 0
    for r in (fast, slow):
        steps = r.steps
        assert {s["source"] for s in steps} == {"dataloader"}
        assert [s["index"] for s in steps] == list(range(len(steps)))
        check_balanced(r.phases)
    # Two passes over 250 batches; the loader's end closes each pass's last step.
    assert len(fast.steps) == len(slow.steps) == 500
    want = [(3 if i % 9 == 0 else 4, (3 if i % 9 == 0 else 4) * (6 + i % 5))
            for _ in range(2) for i in range(250)]
    for r in (fast, slow):
        assert [(s["items"], s["tokens"]) for s in r.steps] == want
    cf = __import__("json").loads((fast.dir / "checks.json").read_text())
    assert cf["forwards"] == 500
    assert 0 < cf["forwards_examined"] < 150  # the checks went native and sample


TRAIN_LOOP = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for i in range(300):
    x = torch.randn(8, 16)
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
print("ok", round(float(model[0].weight.sum()), 6))
"""


def test_optimizer_steps_deferred_match_python_steps(tmp_path):
    fast, slow = _both(tmp_path, TRAIN_LOOP)
    assert fast.proc.stdout == slow.proc.stdout  # the training itself is untouched
    assert fast.main_agent()["steps_deferred"] > 200
    assert slow.main_agent()["steps_deferred"] == 0
    for r in (fast, slow):
        steps = r.steps
        assert len(steps) == 300  # a step ends at each optimizer.step(): none is lost
        assert {s["source"] for s in steps} == {"optimizer"}
        assert [s["index"] for s in steps] == list(range(300))
        for a, b in zip(steps, steps[1:], strict=False):
            assert a["end_mono_ns"] <= b["start_mono_ns"]
            assert b["start_mono_ns"] < b["end_mono_ns"]
        check_balanced(r.phases)
        assert sum(s["phase"] == "steady" for s in steps) > 250
