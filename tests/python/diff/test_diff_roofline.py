"""`fastenough diff` per op against each side's roof (docs/diff.md, trace.roofline):
the same mm time on an A100 and an H100 reads as 9.0 % and 5.5 % of the memory roof,
an op on one side only has the other side null. Two hand-built traces."""

from __future__ import annotations

import json

BF16 = ["c10::BFloat16", "c10::BFloat16"]
A100 = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85198045184,
        "computeMajor": 8, "computeMinor": 0, "numSms": 108}
H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85028700160,
        "computeMajor": 9, "computeMinor": 0, "numSms": 132}


def _trace(device: dict, with_add: bool) -> dict:
    ev = []

    def op(name, ts, ext, dims, types, kernel, dur):
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
                   "dur": 50, "args": {"External id": ext, "Input Dims": dims,
                                       "Input type": types}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": ts + 10, "dur": 2,
                   "args": {"correlation": 100 + ext, "External id": ext}})
        ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7,
                   "ts": ts + 20, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": 100 + ext,
                            "External id": ext}})

    op("aten::mm", 0, 1, [[256, 512], [512, 1024]], BF16, "sm80_bf16_gemm", 10)
    op("aten::mm", 100, 2, [[256, 512], [512, 1024]], BF16, "sm80_bf16_gemm", 10)
    if with_add:
        op("aten::add", 200, 3, [[1024, 1024], [1024, 1024], []], ["float", "float", "Scalar"],
           "add_kernel", 18)
    return {"deviceProperties": [device], "traceEvents": ev}


def _pair(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps(_trace(A100, True)))
    b.write_text(json.dumps(_trace(H100, False)))
    return a, b


def test_diff_json_gives_both_sides_percent_of_roof(cli, tmp_path):
    a, b = _pair(tmp_path)
    proc = cli("diff", "--json", a, b)
    assert proc.returncode == 0, proc.stderr
    roof = json.loads(proc.stdout)["trace"]["roofline"]
    assert [p["op"] for p in roof] == ["aten::mm", "aten::add"]
    mm, add = roof
    assert mm["input_dims"] == "[[256, 512], [512, 1024]]"
    # 2 x 1,835,008 bytes in 20 us = 1.835008e11 B/s: 8.999549 % of 2.039e12 (A100 SXM4
    # 80GB), 5.477636 % of 3.35e12 (H100 SXM5); both memory-bound.
    assert mm["a"]["device_ns"] == mm["b"]["device_ns"] == 20000
    assert abs(mm["a"]["pct_of_roof"] - 8.999549) < 1e-5
    assert abs(mm["b"]["pct_of_roof"] - 5.477636) < 1e-5
    assert mm["a"]["bound"] == mm["b"]["bound"] == "memory"
    assert mm["a"]["device"] == "NVIDIA A100 SXM4 80GB"
    assert mm["b"]["device"] == "NVIDIA H100 SXM5 80GB"
    # 12,582,912 bytes in 18 us = 34.283995 % of 2.039e12; B has no add.
    assert abs(add["a"]["pct_of_roof"] - 34.283995) < 1e-5
    assert add["b"] is None


def test_diff_text_and_markdown_show_the_roof_table(cli, tmp_path):
    a, b = _pair(tmp_path)
    for fmt in ((), ("--md",)):
        proc = cli("diff", *fmt, a, b)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert "How close to the roof, per op" in out, out
        assert "9.0%" in out and "5.5%" in out, out
        assert "34.3%" in out
        assert "NVIDIA H100 SXM5 80GB" in out


def test_diff_device_names_the_traces_without_device_properties(cli, tmp_path):
    # Both sides without deviceProperties: null percentages; --device "H100 SXM" holds both
    # to the H100 SXM5's 3.35e12 B/s: the mm 5.477636 % on each side.
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for p, with_add in ((a, True), (b, False)):
        doc = _trace(A100, with_add)
        del doc["deviceProperties"]
        p.write_text(json.dumps(doc))
    bare = json.loads(cli("diff", "--json", a, b).stdout)["trace"]["roofline"]
    assert bare[0]["a"]["pct_of_roof"] is None
    proc = cli("diff", "--json", "--device", "H100 SXM", a, b)
    assert proc.returncode == 0, proc.stderr
    mm = json.loads(proc.stdout)["trace"]["roofline"][0]
    assert abs(mm["a"]["pct_of_roof"] - 5.477636) < 1e-5
    assert abs(mm["b"]["pct_of_roof"] - 5.477636) < 1e-5
    bad = cli("diff", "--device", "H1000", a, b)
    assert bad.returncode == 2 and "close names" in bad.stderr and "Traceback" not in bad.stderr
    peaks = tmp_path / "peaks.json"
    peaks.write_text("[1, 2]")
    bad = cli("diff", "--peaks", peaks, a, b)
    assert bad.returncode == 2 and "--peaks" in bad.stderr and "Traceback" not in bad.stderr
