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
    steady_modes = [d["mode"] for d in details if d["name"] == "steady"]
    assert steady_modes == ["train", "eval", "train", "eval"]
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
        model = torch.nn.Linear(64, 64)
        with torch.no_grad():
            for _ in range(30):
                model(torch.randn(16, 64))
        if len(sys.argv) == 1:
            child.wait()
    """
    report, _ = _run(tmp_path, body, "--no-trace", env={"OMP_NUM_THREADS": ""})
    [f] = [f for f in report["findings"] if f["code"] == "cpu-oversubscribed"]
    assert f["evidence"]["threads_total"] == 4 and f["evidence"]["cores"] == 2
    assert f["evidence"]["suggested_threads_per_process"] == 1
