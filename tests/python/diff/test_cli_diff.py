"""`fastenough diff`: hand-made traces with exact expected rows, errors, and two
real demo runs (wasteful vs fixed) whose trace diff shows the removed ops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data" / "diff"
GEMM = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)")
RELU = ("void at::native::vectorized_elementwise_kernel<4, "
        "at::native::clamp_min_scalar_kernel_impl, "
        "at::detail::Array<char*, 2> >(int, at::native::clamp_min_scalar_kernel_impl, "
        "at::detail::Array<char*, 2>)")


def _cli(*args, cwd=None, timeout=300):
    env = {k: v for k, v in os.environ.items() if k != "FASTENOUGH_RUN_DIR"}
    env["COLUMNS"] = "200"
    return subprocess.run([sys.executable, "-m", "fastenough", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def _json(*args):
    proc = _cli("diff", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_fixture_traces_exact_rows():
    doc = _json(str(DATA / "a.json"), str(DATA / "b.json"))
    assert doc["schema"] == "fastenough.diff/1"
    assert doc["run"] is None
    t = doc["trace"]
    assert t["basis"] == "per_steady_step"
    assert t["steady_steps"] == {"a": 2, "b": 2}
    # The GEMM kernel became 2x slower; the relu and its kernel are gone entirely.
    # Traces alone do not know their items per step: no per-item figures.
    assert t["per_item"] is None
    assert t["rows"] == [
        {"status": "changed", "kind": "kernel", "name": GEMM, "input_dims": None,
         "input_dims_a": [], "input_dims_b": [], "shapes_changed": False, "entirely": False,
         "a": {"calls": 1, "time_ns": 40000, "time_per_item_ns": None},
         "b": {"calls": 1, "time_ns": 80000, "time_per_item_ns": None},
         "delta_calls": 0, "delta_time_ns": 40000, "ratio": 2,
         "delta_time_per_item_ns": None, "ratio_per_item": None,
         "calls_changed": False, "time_changed": True},
        {"status": "removed", "kind": "cpu_op", "name": "aten::relu", "input_dims": "[[8, 128]]",
         "input_dims_a": ["[[8, 128]]"], "input_dims_b": [], "shapes_changed": False,
         "entirely": True, "a": {"calls": 1, "time_ns": 10000, "time_per_item_ns": None},
         "b": None, "delta_calls": -1, "delta_time_ns": -10000, "ratio": None,
         "delta_time_per_item_ns": None, "ratio_per_item": None,
         "calls_changed": False, "time_changed": False},
        {"status": "removed", "kind": "kernel", "name": RELU, "input_dims": None,
         "input_dims_a": [], "input_dims_b": [], "shapes_changed": False, "entirely": True,
         "a": {"calls": 1, "time_ns": 3000, "time_per_item_ns": None}, "b": None,
         "delta_calls": -1, "delta_time_ns": -3000, "ratio": None,
         "delta_time_per_item_ns": None, "ratio_per_item": None,
         "calls_changed": False, "time_changed": False},
    ]
    # aten::linear, aten::addmm, aten::copy_ (30 + 25 + 15 µs) and the memcpy (4 µs).
    assert t["unchanged"] == {"rows": 4, "a_time_ns": 74000, "b_time_ns": 74000}
    assert t["totals"]["kernel"] == {"a_time_ns": 43000, "b_time_ns": 80000,
                                     "a_time_per_item_ns": None, "b_time_per_item_ns": None,
                                     "rows_a": 2, "rows_b": 1}
    assert t["totals"]["memcpy"] == {"a_time_ns": 4000, "b_time_ns": 4000,
                                     "a_time_per_item_ns": None, "b_time_per_item_ns": None,
                                     "rows_a": 1, "rows_b": 1}
    assert doc["gate"] is None


def test_swapped_sides_mirror_the_rows():
    t = _json(str(DATA / "b.json"), str(DATA / "a.json"))["trace"]
    assert [(r["status"], r["kind"], r["delta_time_ns"]) for r in t["rows"]] == [
        ("changed", "kernel", -40000), ("added", "cpu_op", 10000), ("added", "kernel", 3000)]


def test_threshold_turns_the_slower_kernel_into_noise():
    proc = _cli("diff", str(DATA / "a.json"), str(DATA / "b.json"), "--json",
                "--min-change-us", "50")
    t = json.loads(proc.stdout)["trace"]
    assert [r["status"] for r in t["rows"]] == ["removed", "removed"]
    assert t["unchanged"]["rows"] == 5


def test_terminal_and_markdown_shorten_kernel_names():
    proc = _cli("diff", str(DATA / "a.json"), str(DATA / "b.json"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    # Gone entirely first (the relu and its kernel), then the slower GEMM.
    marks = [line.split()[0] for line in lines if line.startswith(("gone ", "~ "))]
    assert marks == ["gone", "gone", "~"], out
    assert "aten::relu" in out and "[[8, 128]]" in out
    assert "\\n" not in out  # the shapes are a line of their own, not an escaped newline
    assert "4 unchanged" in out
    assert GEMM not in out  # shortened: no return type, no parameter list
    assert "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>" in out
    md = _cli("diff", str(DATA / "a.json"), str(DATA / "b.json"), "--md", "--top", "1").stdout
    assert md.startswith("# fastenough diff\n")
    assert "| gone | cpu\\_op | aten::relu \\[\\[8, 128\\]\\] |" in md  # markup escaped
    assert "cutlass" not in md.split("Trace diff")[1]  # cut by --top 1
    assert "2 more changed row(s) (--top)" in md


def test_short_kernel_name():
    from fastenough.render.diff_text import short_kernel_name

    assert short_kernel_name("void f<int>(float*, int)") == "f<int>"
    assert short_kernel_name("volta_sgemm_128x64_nn") == "volta_sgemm_128x64_nn"
    s = short_kernel_name(RELU, 40)
    assert len(s) == 40 and s.startswith("at::native::vectorized") and s.endswith("2> >")


@pytest.mark.parametrize("case", ["missing", "not-a-trace", "bad-top"])
def test_errors_exit_2_with_one_line(tmp_path, case):
    if case == "missing":
        args = [str(tmp_path / "nope.json"), str(DATA / "b.json")]
        expect = "nope.json: not found"
    elif case == "not-a-trace":
        bad = tmp_path / "bad.json"
        bad.write_text("this is not json")
        args = [str(DATA / "a.json"), str(bad)]
        expect = "bad.json"
    else:
        args = [str(DATA / "a.json"), str(DATA / "b.json"), "--top", "0"]
        expect = "argument --top: '0': out of range"  # argparse's, after the usage
    proc = _cli("diff", *args)
    assert proc.returncode == 2
    lines = [x for x in proc.stderr.strip().splitlines() if not x.startswith(("usage:", " "))]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("fastenough: ") and expect in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


# ---- two real runs of the bundled demo ----

def _demo_run(tmp_path: Path, name: str, *flags) -> Path:
    cwd = tmp_path / name
    cwd.mkdir()
    proc = _cli("demo", "--device", "cpu", *flags, cwd=cwd, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (cwd / ".fastenough" / "runs").iterdir()
    return run_dir


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("diff-demo")
    # The wasteful path runs batch 1: one step per item. On a busy machine step
    # times settle late and warm-up takes its 20 steps at most, then 2 steady
    # steps and the 5 of the profiler window: 16 items left no steady step (no
    # trace, no throughput) when the load average was 5; 64 leave margin.
    wasteful = _demo_run(tmp, "wasteful", "--items", "64")
    fixed16 = _demo_run(tmp, "fixed16", "--fixed", "--items", "16")
    # 16 items are two batches of 8 on the fixed path: too few steps for a profiler
    # window. 256 items (32 steps) reach one.
    fixed = _demo_run(tmp, "fixed", "--fixed", "--items", "256")
    return wasteful, fixed16, fixed


def test_demo_runs_side_by_side_without_a_trace_on_one_side(demo_runs):
    wasteful, fixed16, _ = demo_runs
    assert list((wasteful / "trace").iterdir())
    assert not list((fixed16 / "trace").iterdir())  # if this fails, pick fewer items
    proc = _cli("diff", str(wasteful), str(fixed16), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["trace"] is None
    assert any("no trace in this run directory" in n for n in doc["notes"])
    assert "no trace in this run directory" in proc.stderr
    run = doc["run"]
    assert [p["name"] for p in run["phases"]][:3] == ["startup", "load", "warmup"]
    assert run["memory"]["rss_max_bytes"]["a"] > 0
    # The fixed run has no steady steps at 16 items; its wasteful findings are gone.
    gone = {f["code"] for f in run["findings"] if f["status"] == "gone"}
    assert {"padding-waste", "autograd-in-eval"} <= gone


def test_demo_trace_diff_shows_the_removed_ops(demo_runs):
    wasteful, _, fixed = demo_runs
    doc = _json(str(wasteful), str(fixed))
    run = doc["run"]
    tp = run["throughput"]["items_per_s"]
    assert tp["a"] > 0 and tp["b"] > tp["a"]
    t = doc["trace"]
    assert t["basis"] == "per_steady_step"
    removed = {(r["kind"], r["name"]) for r in t["rows"] if r["status"] == "removed"}
    # The .item() per step and the per-expert matmul loop are gone in the fixed run.
    assert ("cpu_op", "aten::item") in removed
    assert ("cpu_op", "aten::_local_scalar_dense") in removed
    assert all(r["entirely"] for r in t["rows"] if r["name"] in ("aten::item",
                                                                  "aten::_local_scalar_dense"))
    for r in t["rows"]:
        assert r["status"] in {"added", "removed", "changed"}
    # Both runs count their items (1 and 8 per step): the rows are judged per item.
    assert t["per_item"] == {"items_per_step_a": 1, "items_per_step_b": 8}
    deltas = [abs(r["delta_time_per_item_ns"]) for r in t["rows"]]
    assert deltas == sorted(deltas, reverse=True)
    text = _cli("diff", str(wasteful), str(fixed), "--top", "10").stdout
    assert "Phases" in text and "Findings" in text and "Trace diff per item (A 1, B 8" in text
