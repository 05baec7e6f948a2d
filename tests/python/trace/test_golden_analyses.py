"""Golden tests: hand-written traces with hand-computed expected reports.

Every `tests/data/golden/NAME.json` is analysed with `fastenough analyze --json`
in a subprocess and compared with `NAME.expected.json` (partial match: keys
absent from the expected file are ignored; lists must have the same length;
integers exact, floats to 1e-9 relative). The arithmetic is in
tests/data/golden/README.md.

Also: every trace of the HTA corpus analyses without an error counter, with a
known number of devices and kernels per device (skipped without the corpus).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import DATA, run_cli

GOLDEN = DATA / "golden"
CASES = sorted(p for p in GOLDEN.glob("*.json") if not p.name.endswith(".expected.json"))


def _mismatches(expected, actual, path="$"):
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{path}.{key}: missing")
            else:
                out += _mismatches(value, actual[key], f"{path}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected a list of {len(expected)}, got {actual!r}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out += _mismatches(e, a, f"{path}[{i}]")
        return out
    if isinstance(expected, float) or isinstance(actual, float):
        if not isinstance(actual, (int, float)) or isinstance(actual, bool) or not math.isclose(
            expected, actual, rel_tol=1e-9, abs_tol=1e-9
        ):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return []
    if expected != actual or type(expected) is not type(actual):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def test_partial_match_can_fail():
    assert _mismatches({"a": 1}, {"a": 2})
    assert _mismatches({"a": [1, 2]}, {"a": [1]})
    assert _mismatches({"a": 0.5}, {"a": 0.6})
    assert _mismatches({"a": None}, {"a": 0})
    assert not _mismatches({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3})


def test_there_are_golden_cases():
    assert CASES, f"no golden traces in {GOLDEN}"


@pytest.mark.parametrize("trace", CASES, ids=lambda p: p.name)
def test_golden(trace: Path):
    expected = json.loads(trace.with_name(trace.name[: -len(".json")] + ".expected.json")
                          .read_text())
    proc = run_cli("analyze", "--json", "--no-progress", trace)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    problems = _mismatches(expected, report)
    assert not problems, "\n".join(problems)


# HTA corpus: file (relative to the corpus) -> kernel_count per (rank, device).
# Checked against an independent count of "cat": "kernel" events per
# args.device for several files; the execution-trace file
# (execution_trace/benchmark_simple_add_et.json.gz) is not a profiler trace.
CORPUS_KERNELS: dict[str, dict[tuple[int, int], int]] = {
    "_from_pr324/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz": {(0, 0): 1},
    "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz": {(0, 2): 14},
    "call_stack/backward_thread.json": {(0, 0): 1},
    "cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz": {},
    "critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz": {(0, 0): 79},
    "critical_path/cuda_event_sync/event_sync_trace.json.gz": {(0, 0): 4},
    "critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz": {(0, 0): 3},
    "critical_path/end_to_end/simple_add/input/trace.json.gz": {(0, 0): 79},
    "critical_path/end_to_end/simple_add/output/overlaid_critical_path_trace.json.gz":
        {(0, 0): 79},
    "critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz": {(0, 0): 79},
    "cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz": {},
    "df_index_resolver/df_index_resolver.json.gz": {(1, 1): 19370},
    "distributed_info_unavailable/distributed_info_not_found.json.gz": {},
    "execution_trace/benchmark_simple_add_trace.json.gz": {(0, 0): 4},
    "mixed_files/rank_non_gpu.json.gz": {},
    "mtia_inference_trace/mtia_inference_rank_0.json.gz": {(0, 17): 1313},
    "mtia_trace_single_rank/mtia_rank_0.json.gz": {(0, 9): 25814},
    "nccl_parser_config/nccl_data.json.gz": {(0, 0): 2700},
    "negative_queue_length_values_check/rank0.json.gz": {(0, 0): 6080},
    "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz": {(0, 0): 4350},
    "rank_non_gpu/rank_non_gpu.json.gz": {},
    "rank_unavailable/rank_not_found.json.gz": {},
    "timeline_analysis/sampled_rank-0.json.gz": {(0, 0): 1154},
    "trace_compare/base/base.json.gz": {(1, 1): 6},
    "trace_compare/test/test.json.gz": {(1, 1): 5},
    "trace_diff/control/control.json.gz": {(3, 3): 8568},
    "trace_diff/test/test.json.gz": {(1, 1): 9876},
    "trace_file_list/inference_rank_1.json.gz": {(1, 0): 4},
    "trace_filter/sampled_rank-0.json.gz": {(0, 0): 1154},
    "trace_filter/sampled_rank-1.json.gz": {(1, 1): 1104},
    "triton_example/triton_example.json.gz": {(0, 0): 1},
}


# One test per corpus file: a file missing from the corpus skips its own check,
# never the checks of the files after it.
@pytest.mark.parametrize("rel", sorted(CORPUS_KERNELS))
def test_corpus_table(corpus_dir: Path, rel: str):
    from fastenough import _core

    expected = CORPUS_KERNELS[rel]
    path = corpus_dir / rel
    if not path.exists():
        pytest.skip(f"{rel} missing from the corpus")
    report = json.loads(_core.analyze_to_json([str(path)], None, 1))
    errors = [c["name"] for c in report["counters"] if c["severity"] == "error"]
    assert not errors, f"{rel}: error counters {errors}"
    got = {(d["rank"], d["device"]): d["kernel_count"] for d in report["devices"]}
    assert got == expected, rel
    for d in report["devices"]:
        # The breakdown identities hold on real traces too.
        parts = d["compute_ns"] + d["comm_ns"] + d["memcpy_ns"] + d["memset_ns"]
        assert parts == d["busy_ns"], rel
        assert d["idle_ns"] == d["span_ns"] - d["busy_ns"] >= 0, rel
        assert all(v >= 0 for v in d["idle_breakdown"].values()), rel
        assert sum(d["device_idle"].values()) == d["idle_ns"], rel
    for rank in report["steps"]["per_rank"]:
        for w in rank["windows"]:
            assert 0 <= w["device_busy_ns"] <= w["dur_ns"], rel
