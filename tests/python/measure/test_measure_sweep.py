"""fastenough.sweep_batch and bucket_by_length on the CPU, with throughput curves
known by construction (real sleeps, real torch modules)."""

from __future__ import annotations

import json
import sys
import textwrap
import time

import pytest
import torch
from conftest import run_cli

import fastenough
from fastenough.errors import MeasurementWarning, UsageError
from fastenough.measure.sweep import default_sizes


def _flat_then_linear(batch):
    # 8 ms for up to 16 items, then 0.5 ms per item: items/s grows 2x per doubling up to
    # 16 (2000/s) and stays at 2000/s after, so the knee is exactly 16. Sleep overshoot
    # on a shared machine (up to ~2 ms here) favours the longer calls of big batches by
    # a few percent, so the test uses within=0.2: size 8 is at half the best either way.
    time.sleep(max(0.008, 0.0005 * len(batch)))


def test_the_knee_of_a_known_curve():
    r = fastenough.sweep_batch(_flat_then_linear, lambda n: list(range(n)),
                               sizes=[1, 2, 4, 8, 16, 32, 64], rounds=3, warmup=1,
                               within=0.2)
    assert [p["size"] for p in r.points] == [1, 2, 4, 8, 16, 32, 64]
    assert r.knee == 16
    assert r.best in (16, 32, 64)
    p16 = next(p for p in r.points if p["size"] == 16)
    assert 1500 < p16["items_per_s"] <= 2000 and len(p16["round_s"]) == 3
    # Each round repeats the 8 ms step to last about min_round_s (20 ms): 3 calls
    # (2 when one call overshot past 10 ms).
    assert p16["calls_per_round"] in (2, 3)
    assert not r.protocol_change and r.out_of_memory_at is None
    assert "<- knee" in repr(r) and "batch     16" in repr(r)
    json.dumps(r.to_dict())


def test_out_of_memory_stops_the_sweep_there():
    built = []

    def make(n):
        built.append(n)
        if n >= 32:
            raise MemoryError(f"cannot allocate a batch of {n}")  # what the CPU raises
        return list(range(n))

    r = fastenough.sweep_batch(_flat_then_linear, make, sizes=[4, 8, 16, 32, 64],
                               rounds=1, warmup=0)
    assert built == [4, 8, 16, 32]  # 64 never tried
    assert r.out_of_memory_at == 32
    assert r.points[-1] == {"size": 32, "status": "out of memory (MemoryError)"}
    assert r.knee == 16  # the largest size that ran; within 5% of nothing bigger
    assert any("ran out of memory" in n for n in r.notes)


def test_an_npu_style_out_of_memory_on_the_first_size_ends_the_sweep():
    # torch_npu reports a RuntimeError naming "out of memory", not torch.OutOfMemoryError.
    def make(n):
        raise RuntimeError("NPU out of memory. Tried to allocate 2.00 GiB")

    r = fastenough.sweep_batch(_flat_then_linear, make, sizes=[4, 8])
    assert r.out_of_memory_at == 4 and r.knee is None and r.best is None
    assert r.points == [{"size": 4, "status": "out of memory (RuntimeError)"}]
    assert "no batch size ran" in repr(r) and "batch      4  out of memory" in repr(r)


def test_other_errors_are_not_swallowed():
    def run(batch):
        raise ValueError("a bug in the workload")

    with pytest.raises(ValueError, match="a bug"):
        fastenough.sweep_batch(run, lambda n: [0] * n, sizes=[1, 2])


def test_tokens_per_second_when_given():
    r = fastenough.sweep_batch(lambda b: time.sleep(0.002), lambda n: torch.zeros(n, 10),
                               sizes=[2, 4], rounds=1, warmup=0,
                               tokens=lambda b: b.numel())
    p = r.points[0]
    # 2 ms steps, rounds of about 20 ms: at most 10 calls (a sleep never ends
    # early); fewer when the one call timed to choose them was slowed (4 at
    # load 4 on two cores), each round still the calls' own sleep or more.
    assert 1 <= p["calls_per_round"] <= 10
    assert min(p["round_s"]) >= 0.002 * p["calls_per_round"]
    assert p["tokens"] == 20 and p["tokens_per_s"] == pytest.approx(p["items_per_s"] * 10)
    assert "tokens/s" in repr(r)


def test_batch_dependent_semantics_are_a_protocol_change():
    with pytest.warns(MeasurementWarning, match="protocol change"):
        r = fastenough.sweep_batch(lambda b: None, lambda n: [0] * n, sizes=[1, 2],
                                   batch_dependent=["padding"])
    assert r.protocol_change and r.semantics == ["padding"]
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4)).train()
    with pytest.warns(MeasurementWarning, match="batch_norm"):
        r = fastenough.sweep_batch(model, lambda n: torch.randn(n, 4), sizes=[2, 4],
                                   model=model)
    assert r.semantics == ["batch_norm (train mode)"] and "PROTOCOL CHANGE" in repr(r)
    model.eval()
    r = fastenough.sweep_batch(model, lambda n: torch.randn(n, 4), sizes=[2, 4], model=model)
    assert not r.protocol_change


def test_default_sizes_and_bad_sizes():
    assert default_sizes(8) == [2, 4, 8, 16, 32, 64, 128, 256]
    assert default_sizes(1) == [1, 2, 4, 8, 16, 32]
    with pytest.raises(UsageError, match="sizes must be"):
        fastenough.sweep_batch(lambda b: None, lambda n: n, sizes=[0, 2])


def test_bucket_by_length_by_hand():
    # Lengths 5, 1, 5, 1 in batches of 2. Input order: [5, 1], [5, 1] -> padded to
    # 5 + 5 each: 20 tokens for 12 real, 8 padding. Bucketed: [1, 1], [5, 5] -> 2 + 10 = 12,
    # no padding; 8 of the 20 padded tokens saved (40%).
    items = ["aaaaa", "b", "ccccc", "d"]
    plan = fastenough.bucket_by_length(items, batch_size=2)
    assert plan.batches == [[1, 3], [0, 2]]
    assert (plan.real_tokens, plan.padded_tokens_before, plan.padded_tokens_after) == (12, 20, 12)
    assert (plan.padding_before, plan.padding_after) == (8, 0)
    assert plan.saved_share == pytest.approx(0.4)
    outputs = [items[i].upper() for i in plan.order]
    assert plan.restore(outputs) == ["AAAAA", "B", "CCCCC", "D"]
    assert "padding 8 -> 0 tokens (40.0%" in repr(plan)
    assert fastenough.bucket_by_length([3, 1, 2], 5, key=None).padded_tokens_before == 9
    with pytest.raises(UsageError):
        fastenough.bucket_by_length(items, 0)


def test_fastenough_run_reports_the_knee_the_workload_measured(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        import time, torch, fastenough
        r = fastenough.sweep_batch(lambda b: time.sleep(0.002), lambda n: torch.zeros(n),
                                   sizes=[1, 2], rounds=1, warmup=0)
        print("knee", r.knee)
    """))
    r = run_cli("run", "--", sys.executable, str(prog), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "knee 2" in r.stdout
    run_dir = next((tmp_path / ".fastenough" / "runs").iterdir())
    kept = json.loads((run_dir / "sweep_batch.json").read_text())
    # 2 ms whatever the size: batch 2 has twice the items/s of batch 1.
    assert kept["knee"] == 2 and [p["size"] for p in kept["points"]] == [1, 2]
    report = json.loads((run_dir / "report.json").read_text())
    assert report["meta"]["batch_sweep"]["knee"] == 2
    assert "Batch sweep knee at batch 2" in r.stderr and "sizes tried: 1, 2" in r.stderr


def test_an_outlier_is_not_a_knee_without_a_warning():
    # Issue 24: under load one size was measured 6x faster than the batch can
    # explain and became the knee with no warning. Here batch 64 returns at
    # once where the others take 8 ms: 64 / ~0.1 ms against 32 / 8 ms.
    def run(batch):
        if len(batch) != 64:
            time.sleep(0.008)

    with pytest.warns(MeasurementWarning, match="more than batching can explain"):
        r = fastenough.sweep_batch(run, lambda n: list(range(n)), sizes=[8, 16, 32, 64],
                                   rounds=3, warmup=1)
    assert r.knee == 64
    assert any("batch 64 is" in w and "more than batching can explain" in w
               for w in r.warnings), r.warnings
    assert any("knee or the best size rests on a suspect measurement" in w for w in r.warnings)
    assert "WARNING: items/s at batch 64" in repr(r)
    assert r.to_dict()["warnings"] == r.warnings
