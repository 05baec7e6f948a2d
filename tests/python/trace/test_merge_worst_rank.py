"""The worst rank of each op (roofline.worst_rank_per_op, docs/roofline.md): two
ranks ran the same bf16 mm on an A100, one twice as slowly; `merge` of their
summaries and `analyze` of both traces name it, and the terminal and Markdown
show it. Figures by hand in the comments."""

from __future__ import annotations

import json

BF16 = ["c10::BFloat16", "c10::BFloat16"]
A100 = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85198045184,
        "computeMajor": 8, "computeMinor": 0, "numSms": 108}


def _trace(rank: int, kernel_us: int) -> dict:
    """Two calls of mm [256, 512] x [512, 1024] (bf16), one kernel of kernel_us each."""
    ev = []
    for i, ts in enumerate((0, 100)):
        ext = i + 1
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                   "ts": ts, "dur": 60, "args": {"External id": ext,
                                                  "Input Dims": [[256, 512], [512, 1024]],
                                                  "Input type": BF16}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": ts + 10, "dur": 2,
                   "args": {"correlation": 100 + ext, "External id": ext}})
        ev.append({"ph": "X", "cat": "kernel", "name": "sm80_bf16_gemm", "pid": 0, "tid": 7,
                   "ts": ts + 20, "dur": kernel_us,
                   "args": {"device": 0, "stream": 7, "correlation": 100 + ext,
                            "External id": ext}})
    return {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
            "deviceProperties": [A100], "traceEvents": ev}


def _traces(tmp_path):
    paths = []
    for rank, us in ((0, 10), (1, 20)):
        p = tmp_path / f"rank{rank}.json"
        p.write_text(json.dumps(_trace(rank, us)))
        paths.append(p)
    return paths


def _check(worst: list) -> None:
    # 2 x 1,835,008 bytes: in 20 us (rank 0) 1.835008e11 B/s = 8.999549 % of 2.039e12; in
    # 40 us (rank 1) 4.499774 %. Both memory-bound (intensity 146.3 < ridge 153.0).
    (w,) = worst
    assert w["op"] == "aten::mm"
    assert w["input_dims"] == "[[256, 512], [512, 1024]]"
    assert w["ranks"] == 2
    assert w["device_ns"] == 60000
    assert w["worst_rank"] == 1
    assert abs(w["worst_pct_of_roof"] - 4.499774) < 1e-5
    assert w["worst_bound"] == "memory"
    assert w["best_rank"] == 0
    assert abs(w["best_pct_of_roof"] - 8.999549) < 1e-5


def test_merge_names_the_worst_rank_per_op(cli, tmp_path):
    paths = _traces(tmp_path)
    sums = tmp_path / "sums"
    proc = cli("analyze", "--json", "--rank-summaries", sums, *paths)
    assert proc.returncode == 0, proc.stderr
    _check(json.loads(proc.stdout)["roofline"]["worst_rank_per_op"])
    merged = cli("merge", "--json", sums)
    assert merged.returncode == 0, merged.stderr
    _check(json.loads(merged.stdout)["roofline"]["worst_rank_per_op"])


def test_terminal_and_markdown_show_the_worst_rank(cli, tmp_path):
    paths = _traces(tmp_path)
    for fmt in ((), ("--md",)):
        proc = cli("analyze", *fmt, *paths)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert "Worst rank per op" in out, out
        assert "4.5%" in out and "9.0%" in out


def test_one_rank_has_no_worst_rank(cli, tmp_path):
    p = tmp_path / "rank0.json"
    p.write_text(json.dumps(_trace(0, 10)))
    proc = cli("analyze", "--json", p)
    assert json.loads(proc.stdout)["roofline"]["worst_rank_per_op"] == []
    assert "Worst rank per op" not in cli("analyze", p).stdout
