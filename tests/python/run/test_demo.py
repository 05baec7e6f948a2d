"""The bundled demo: the fixed path gives the wasteful path's scores, item by item."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")


def _workload(tmp_path, *flags):
    out = tmp_path / ("fixed.json" if "--fixed" in flags else "wasteful.json")
    env = {k: v for k, v in os.environ.items() if k != "FASTENOUGH_RUN_DIR"}
    proc = subprocess.run(
        [sys.executable, "-m", "fastenough.demo.workload", "--items", "40", "--device", "cpu",
         "--out", str(out), *flags],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, json.loads(out.read_text())


def test_fixed_and_wasteful_agree_per_item(tmp_path):
    from fastenough.demo.workload import TOLERANCE_ABS

    out_w, wasteful = _workload(tmp_path)
    out_f, fixed = _workload(tmp_path, "--fixed")
    assert out_w.startswith("demo (wasteful, cpu): 40 items, total score ")
    assert out_f.startswith("demo (fixed, cpu): 40 items, total score ")
    assert wasteful["items"] == fixed["items"] == 40
    a, b = wasteful["scores"], fixed["scores"]
    assert len(a) == len(b) == 40
    worst = max(abs(x - y) for x, y in zip(a, b, strict=True))
    assert worst <= TOLERANCE_ABS, worst
    # Scores are sums of 1..8 log-probabilities over a vocabulary of 8000: negative,
    # about -9 per token for an untrained model, and not all the same.
    assert all(-8 * 30 < s < 0 for s in a)
    assert len({round(s, 3) for s in a}) == 40


def test_the_two_paths_differ_in_the_advertised_ways():
    import torch

    from fastenough.demo import workload as w

    model = w.build_model(torch.device("cpu"))
    items = w.make_items(3)
    ids = torch.randint(1, w.VOCAB, (2, 10))
    h = model(ids)
    assert h.requires_grad  # the wasteful path records autograd
    wasteful = w.score_wasteful(model, items, torch.device("cpu"))
    fixed = w.score_fixed(model, items, torch.device("cpu"))  # stacks the experts
    assert all(b.moe.batched for b in model.blocks)
    assert max(abs(x - y) for x, y in zip(wasteful, fixed, strict=True)) <= w.TOLERANCE_ABS
    # Same items every time (deterministic seeds).
    assert w.make_items(3) == items


def test_demo_command_runs(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "FASTENOUGH_RUN_DIR"}
    env["OMP_NUM_THREADS"] = "1"
    out = tmp_path / "scores.json"
    proc = subprocess.run(
        [sys.executable, "-m", "fastenough", "demo", "--fixed", "--no-trace", "--items", "32",
         "--device", "cpu", "--out", str(out)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "demo (fixed, cpu): 32 items" in proc.stdout
    assert len(json.loads(out.read_text())["scores"]) == 32
    assert (tmp_path / ".fastenough" / "runs").is_dir()
