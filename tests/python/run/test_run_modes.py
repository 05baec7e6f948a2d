"""Training and evaluation steps of one program are reported apart, each steady
phase gets a verdict of what bounds it, and items/tokens follow the model's own
layout (issue 14, defects 7, 11 and 13)."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from conftest import run_cli

pytest.importorskip("torch")

# word_language_model's shape: train() with model.train(), manual SGD, then
# evaluate() with model.eval() under no_grad; sequence-first LSTM input [35, B].
TRAIN_EVAL = """
import torch, torch.nn as nn
torch.manual_seed(0)
class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        self.rnn = nn.LSTM(32, 32)
        self.out = nn.Linear(32, 100)
    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return torch.log_softmax(self.out(h), -1)
model = LM()
crit = nn.NLLLoss()
for epoch in range(2):
    model.train()
    for _ in range(40):
        x = torch.randint(0, 100, (35, 20))
        model.zero_grad()
        loss = crit(model(x).view(-1, 100), x.view(-1))
        loss.backward()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-0.1)
    model.eval()
    with torch.no_grad():
        for _ in range(30):
            x = torch.randint(0, 100, (35, 10))
            model(x)
print("done")
"""


def _run(tmp_path, body: str, *opts: str, env=None):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(body))
    r = run_cli("run", "--no-history", "--quiet", *opts, "--", sys.executable, str(script),
                cwd=tmp_path, env=dict({"OMP_NUM_THREADS": "1"}, **(env or {})))
    assert r.returncode == 0, r.stderr[-3000:]
    runs = sorted((tmp_path / ".fastenough" / "runs").iterdir())
    return json.loads((runs[-1] / "report.json").read_text()), runs[-1]


def _steps(run_dir):
    return [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]


def test_train_and_eval_are_separate_steady_phases(tmp_path):
    report, run_dir = _run(tmp_path, TRAIN_EVAL, "--no-trace")
    steps = _steps(run_dir)
    assert {s["mode"] for s in steps} == {"train", "eval"}
    # Items from the batch dimension of the sequence-first input, tokens all of it.
    assert {s["items"] for s in steps if s["mode"] == "train"} == {20}
    assert {s["items"] for s in steps if s["mode"] == "eval"} == {10}
    assert {s["tokens"] for s in steps if s["mode"] == "eval"} == {350}
    # No step spans a switch: every train step is a train step's length.
    by_mode = {m["mode"]: m for m in report["run_details"]["steps_by_mode"]}
    assert set(by_mode) == {"train", "eval"}
    assert by_mode["train"]["median_ns"] > 1.5 * by_mode["eval"]["median_ns"]
    # Structurally, not by duration (a busy machine stretches single steps): no
    # train step holds the start of an eval step, and no eval step a train one.
    starts = {m: [s["start_mono_ns"] for s in steps if s["mode"] == m] for m in ("train", "eval")}
    for s in steps:
        other = starts["eval" if s["mode"] == "train" else "train"]
        assert not any(s["start_mono_ns"] < t < s["end_mono_ns"] for t in other), s
    assert report["steps"]["mode"] == "train"  # the mode with the most steady time
    details = report["run_details"]["phases"]
    # Each mode's steady phases of the two epochs are one row each, with their
    # count (issue 37, item 11: a mode's consecutive phases of one kind merged).
    steady = [(d["mode"], d["instances"]) for d in details if d["name"] == "steady"]
    assert steady == [("train", 2), ("eval", 2)]
    # The second epoch's phases begin steady: the mode was steady before.
    warmups = [d["mode"] for d in details if d["name"] == "warmup"]
    assert warmups == ["train", "eval"]
    agent = [a for a in report["meta"]["agents"] if a["role"] == "main"][0]
    assert agent["batch_dim"] == 1 and agent["mode_switches"] >= 3


def test_every_steady_mode_gets_a_bound_verdict(tmp_path):
    report, _ = _run(tmp_path, TRAIN_EVAL, "--no-trace")
    bounds = {f["evidence"]["mode"]: f for f in report["findings"] if f["code"] == "step-bound"}
    assert set(bounds) == {"train", "eval"}
    train = bounds["train"]["evidence"]
    assert train["bound"] == "host compute"
    assert train["forward_share"] > 0.1 and train["backward_share"] > 0.1
    assert train["timed_steps"] >= 16
    assert bounds["eval"]["evidence"]["backward_share"] == 0
    assert bounds["train"]["verdict"] == "bounded"


def test_real_tokens_come_from_the_attention_mask(tmp_path):
    report, _ = _run(tmp_path, """
        import torch
        class Scorer(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = torch.nn.Embedding(50, 8)
            def forward(self, input_ids, attention_mask):
                return (self.emb(input_ids) * attention_mask[..., None]).sum()
        model = Scorer().eval()
        ids = torch.randint(1, 50, (4, 16))
        mask = torch.zeros(4, 16, dtype=torch.long)
        mask[:, :4] = 1                              # a quarter of the positions are real
        with torch.inference_mode():
            for _ in range(80):
                model(input_ids=ids, attention_mask=mask)
    """, "--no-trace")
    steps = report["steps"]
    assert steps["tokens_per_s"] > 0
    assert steps["real_tokens_per_s"] == pytest.approx(0.25 * steps["tokens_per_s"])


def test_two_processes_on_two_cores_are_oversubscribed(tmp_path):
    """torch's default of one thread per core, in two processes on a 2-core
    affinity: 4 threads on 2 cores."""
    import os

    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs sched_setaffinity and two cores")
    body = """
        import os, subprocess, sys, torch
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
        torch.set_num_threads(2)
        if len(sys.argv) == 1:
            child = subprocess.Popen([sys.executable, __file__, "child"])
        # Work that keeps both threads of both processes busy: threads compete
        # only when the cores are busy (a tiny Linear(64, 64) left them idle,
        # and an idle process tree is not oversubscribed).
        model = torch.nn.Linear(1024, 1024)
        x = torch.randn(256, 1024)
        with torch.no_grad():
            for _ in range(150):
                model(x)
        if len(sys.argv) == 1:
            child.wait()
    """
    report, _ = _run(tmp_path, body, "--no-trace", env={"OMP_NUM_THREADS": ""})
    found = [f for f in report["findings"] if f["code"] == "cpu-oversubscribed"]
    # The finding needs the cores busy (85% of them over the steady steps, from
    # the sampler); on a machine busy with other work the tree gets less, and
    # then nothing competes that fewer threads would fix.
    # (The report weighs the steady phases by length; their plain mean here is
    # close enough away from the 170% line.)
    cpus = [p["cpu_mean_pct"] for p in report["run_details"]["phases"]
            if p["name"] == "steady" and p.get("cpu_mean_pct") is not None]
    cpu = sum(cpus) / len(cpus) if cpus else None
    if cpu is not None and cpu < 150:
        assert found == [], (cpu, found)
        return
    if cpu is not None and cpu < 190 and not found:
        assert 150 <= cpu < 190  # near the line: no finding is right too
        return
    [f] = found
    assert f["evidence"]["threads_total"] == 4 and f["evidence"]["cores"] == 2
    assert f["evidence"]["suggested_threads_per_process"] == 1


# ---------------------------------------------------------------- loops that are not textbook loops
# Lightning restores module.training by assignment after its sanity check:
# wrapping nn.Module.train never saw it, and all training steps were reported as
# evaluation (issue 22, item 2).
TRAINING_RESTORED_BY_ASSIGNMENT = """
import torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 16), torch.randint(0, 2, (32,))
model.eval()                                  # the sanity check
with torch.no_grad():
    for _ in range(2):
        model(x)
for m in model.modules():                     # restored the way Lightning does it
    m.training = True
for _ in range(60):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
print("done")
"""


def test_mode_restored_by_attribute_assignment_is_training(tmp_path):
    report, run_dir = _run(tmp_path, TRAINING_RESTORED_BY_ASSIGNMENT, "--no-trace")
    by_mode = {m["mode"]: m for m in report["run_details"]["steps_by_mode"]}
    assert "train" in by_mode and by_mode["train"]["steady_count"] >= 20, by_mode
    assert "eval" not in by_mode or by_mode["eval"]["steady_count"] == 0, by_mode


# A GAN steps two optimizers in every iteration (dcgan: 126 steps for 63
# iterations, half-steps in one median, issue 22, item 6).
GAN = """
import torch, torch.nn as nn
torch.manual_seed(0)
G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
D = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
real = torch.randn(16, 16)
for it in range(70):
    fake = G(torch.randn(16, 8))
    d_loss = D(real).mean() - D(fake.detach()).mean()
    opt_d.zero_grad(); d_loss.backward(); opt_d.step()
    g_loss = -D(fake).mean()
    opt_g.zero_grad(); g_loss.backward(); opt_g.step()
print("done")
"""


def test_two_optimizers_per_iteration_make_one_step(tmp_path):
    report, run_dir = _run(tmp_path, GAN, "--no-trace")
    steps = [s for s in _steps(run_dir) if s["source"] == "optimizer"]
    # 70 iterations: one step each (the first begins at the first model call).
    assert 68 <= len(steps) <= 70, len(steps)


# PyG's GCN: one optimizer step and one no_grad test forward per epoch; all 400
# steps stayed "warmup" (issue 28, item 1). Each mode settles on its own steps.
ALTERNATING = """
import torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 4))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x, y = torch.randn(256, 32), torch.randint(0, 4, (256,))
for epoch in range(120):
    model.train()
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(-1) == y).float().mean()
print("done")
"""


def test_a_loop_alternating_train_and_eval_reaches_steady_in_both(tmp_path):
    report, run_dir = _run(tmp_path, ALTERNATING, "--no-trace")
    by_mode = {m["mode"]: m for m in report["run_details"]["steps_by_mode"]}
    assert by_mode["train"]["steady_count"] >= 60, by_mode
    assert by_mode["eval"]["steady_count"] >= 60, by_mode
    assert not any(r["code"] == "few-steady-steps" for r in report["measurement"]["reasons"])
    # The terminal's phase table does not grow with the steps.
    from typed_reports import build_view

    table = build_view(report).phases
    assert len(table.rows) <= 8, [r[0] for r in table.rows]


# The step split when steps come from the DataLoader or the optimizer: forward
# 0% and "other" 34-98% before (the main model went unseen once a higher step
# source took over), and LBFGS/Lightning's closure counted as optimizer time.
DATALOADER_TRAINING = """
import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = DataLoader(TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,))),
                  batch_size=64)
for epoch in range(2):
    for x, y in data:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
print("done")
"""

LBFGS = """
import torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 128), nn.Tanh(), nn.Linear(128, 1))
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)
x, y = torch.randn(512, 32), torch.randn(512, 1)
for _ in range(40):
    def closure():
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss
    opt.step(closure)
print("done")
"""


def _split(report, mode="train"):
    [f] = [f for f in report["findings"]
           if f["code"] == "step-bound" and f["evidence"]["mode"] == mode]
    return f["evidence"]


@pytest.mark.parametrize("program", [DATALOADER_TRAINING, LBFGS], ids=["dataloader", "lbfgs"])
def test_the_step_split_sees_the_forward_and_adds_up(tmp_path, program):
    report, _ = _run(tmp_path, program, "--no-trace")
    e = _split(report)
    assert e["forward_share"] > 0.05 and e["backward_share"] > 0.05, e
    parts = sum(e[k] for k in ("forward_share", "backward_share", "optimizer_share",
                               "data_share"))
    assert parts <= 1.0 + 1e-9, e


# facebookresearch/dlrm's shape: one model trained over one DataLoader and
# scored over another, never with model.eval() or no_grad (its inference() has
# `with torch.no_grad():` commented out): the test batches are fetched with the
# flags of training. The test loop also breaks early, as dlrm's nbatches does.
FORWARD_ONLY_LOADER = """
import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
train = DataLoader(TensorDataset(torch.randn(2560, 64), torch.randn(2560, 1)), batch_size=32)
test = DataLoader(TensorDataset(torch.randn(8192, 64)), batch_size=512)
scores = []
for epoch in range(3):
    for x, y in train:
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for i, (x,) in enumerate(test):
        if i >= 12:
            break
        scores.append(float(model(x).sum()))
print("done", len(scores))
"""


@pytest.mark.parametrize("mode_opt", ["--no-trace", "--timing-only"])
def test_a_forward_only_loader_in_train_flags_makes_evaluation_steps(tmp_path, mode_opt):
    report, run_dir = _run(tmp_path, FORWARD_ONLY_LOADER, mode_opt)
    steps = _steps(run_dir)
    by_mode = {m: [s for s in steps if s["mode"] == m] for m in ("train", "eval")}
    # 3 epochs of 80 training batches and 12 test batches; a test loop is known
    # by its first two fetches (FORWARD_ONLY_GAPS), in the first epoch only.
    assert 236 <= len(by_mode["train"]) <= 3 * 80 + 2 + 1, len(by_mode["train"])
    assert len(by_mode["eval"]) >= 3 * 12 - 3, len(by_mode["eval"])
    # Every evaluation step holds a test batch (512 rows), no training batch.
    assert {s["items"] for s in by_mode["eval"] if s["items"] is not None} == {512}
    assert {s["items"] for s in by_mode["train"] if s["items"] is not None} <= {32, 512}
    modes = {m["mode"] for m in report["run_details"]["steps_by_mode"]}
    assert modes == {"train", "eval"}
