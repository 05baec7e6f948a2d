"""The trace detectors end to end through `fastenough analyze`.

waste_trace.json is synthetic (no GPU was available): a Kineto-shaped CUDA
trace of an eval loop with a pageable input copy, a Python loop over 8 small
fp32 expert matmuls and an .item() per step (tests/data/detectors/
make_waste_trace.py). The three must be the first findings, each with its
location, an action and a saving bound computed from the trace's times.
"""

from __future__ import annotations

import json

from conftest import DATA, run_cli

WASTE = DATA / "detectors" / "waste_trace.json"


def analyze(path) -> dict:
    proc = run_cli("analyze", "--json", "--no-progress", path)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def by_code(report: dict) -> dict:
    return {f["code"]: f for f in report["findings"]}


def test_waste_trace_lists_the_three_wastes_first():
    report = analyze(WASTE)
    codes = [f["code"] for f in report["findings"]]
    assert set(codes[:3]) == {"pageable-memcpy", "serial-small-gemm", "sync-in-loop"}, codes
    for f in report["findings"][:3]:
        assert f["verdict"] == "avoidable"
        assert f["action"]
        assert f["saving"]["upper_bound"] is True
        # A bare trace names each frame by its def: the function is known, the
        # line of the call is not (none is made up).
        assert f["where"] and f["where"][0]["file"] and f["where"][0]["def_line"] > 0
        assert "line" not in f["where"][0]


def test_waste_trace_evidence_numbers():
    # Hand-computed from make_waste_trace.py: 8 steps, 7 steady (the first is warm-up).
    f = by_code(analyze(WASTE))
    copy = f["pageable-memcpy"]
    assert copy["evidence"]["copies_per_step"] == 1
    assert copy["evidence"]["bytes_per_step"] == 4 * 1024 * 1024
    assert copy["evidence"]["copy_ns_per_step"] == 700_000
    assert copy["saving"]["per_step_ns"] == 700_000  # nothing overlaps the pageable copy
    assert (copy["where"][0]["file"], copy["where"][0]["def_line"]) == ("eval.py", 52)

    gemm = f["serial-small-gemm"]
    assert gemm["evidence"]["calls_per_run"] == 8
    assert gemm["evidence"]["kernel_ns_per_call"] == 14_000
    # Expert calls every 45 us, kernels of 14 us: 7 gaps of 31 us.
    assert gemm["evidence"]["gap_ns_per_run"] == 7 * 31_000
    # Bound: gaps + (8 - 1) x the 14 us per-call floor.
    assert gemm["saving"]["per_step_ns"] == 7 * 31_000 + 7 * 14_000
    assert (gemm["where"][0]["file"], gemm["where"][0]["def_line"]) == ("moe.py", 31)
    assert gemm["where"][0]["kernel"] == "ampere_sgemm_32x32_sliced1x4_nn"

    sync = f["sync-in-loop"]
    assert sync["evidence"]["calls_per_step"] == 1
    assert sync["evidence"]["blocking_dtoh_copies_per_step"] == 1
    assert (sync["where"][0]["file"], sync["where"][0]["def_line"]) == ("eval.py", 58)
    assert sync["where"][0]["op"] == "aten::item"
    # Device idle from the end of the 4-byte read-back to the next step's copy:
    # sync tail 3 + item tail 4 + 2 + logging 255 + 3 between steps + 23 to the
    # copy = 290 us, of which the 3 us between steps lie outside every step:
    # 287 us. The last step's read-back has no later work, so 6 holes in 7 steps.
    assert sync["saving"]["total_ns"] == 6 * 287_000
    assert sync["saving"]["per_step_ns"] == sync["evidence"]["device_idle_after_ns_per_step"]

    # fp32 on an A100 is bounded by the protocol and claims no saving.
    tc = f["no-tensor-cores"]
    assert tc["verdict"] == "bounded"
    assert tc["saving"]["per_step_ns"] is None


def test_waste_trace_shape_census():
    report = analyze(WASTE)
    linear = [s for s in report["shapes"] if s["op"] == "aten::linear"]
    expert = [s for s in linear if s["input_dims"] == [[256, 1024], [1024, 1024], [1024]]]
    assert expert and expert[0]["count"] == 8 * 8
    assert expert[0]["input_types"] == ["float", "float", "float"]
    assert expert[0]["input_strides"] == [[1024, 1], [1024, 1], [1]]


def test_every_finding_code_is_in_the_catalog():
    known = {
        "gpu-idle-host-bound", "small-kernels", "sync-in-loop", "pageable-memcpy",
        "transfer-in-loop", "cpu-fallback", "serial-small-gemm", "unfused-projections",
        "no-tensor-cores", "dataloader-bound", "comm-not-overlapped", "straggler-rank",
        "low-occupancy", "memory-near-limit", "ops-near-roof", "gemm-wave-quantization",
        "gemm-dims-unaligned", "gemm-memory-bound-shape", "attention-short-sequence",
        "fp32-in-mixed-precision",
    }
    for f in analyze(WASTE)["findings"]:
        assert f["code"] in known
        assert f["verdict"] in {"avoidable", "bounded", "insufficient-evidence"}


def test_straggler_rank_across_two_ranks():
    # make_rank_traces.py: rank 1 reaches each of the 6 all-reduces 2 ms late.
    ranks = [DATA / "detectors" / f"straggler_rank{r}.json" for r in (0, 1)]
    proc = run_cli("analyze", "--json", "--no-progress", *ranks)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # Once: the cross-rank detectors ran twice before (the same finding listed twice).
    assert [x["code"] for x in report["findings"]].count("straggler-rank") == 1
    f = by_code(report)["straggler-rank"]
    assert f["evidence"]["rank"] == 1
    assert f["evidence"]["matched_collectives"] == 6
    assert f["evidence"]["last_arrivals"] == 6
    assert f["evidence"]["mean_late_ns"] == 2_000_000
    assert f["verdict"] == "avoidable"  # 2 ms is far beyond clock skew on one host
    assert f["saving"]["total_ns"] == 6 * 2_000_000


def test_one_rank_alone_has_no_straggler():
    report = analyze(DATA / "detectors" / "straggler_rank1.json")
    assert "straggler-rank" not in by_code(report)
