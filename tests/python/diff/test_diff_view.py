"""`fastenough diff` at 80 columns (issue 24, item 4), on hand-made traces of a
batch-size change: B runs batches of 32 where A ran 8, and A's host syncs
(aten::item, _local_scalar_dense), a clone and a detach are gone in B. Ops are
matched by name first (a GEMM with other shapes is one changed row, not a
removal and an addition), what is gone entirely is listed first, and with both
sides' items per step the rows are judged per item."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli
from diff_runs import make_run, planted

GEMM = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)")
RELU = ("void at::native::vectorized_elementwise_kernel<4, "
        "at::native::clamp_min_scalar_kernel_impl, at::detail::Array<char*, 2> >(int, "
        "at::native::clamp_min_scalar_kernel_impl, at::detail::Array<char*, 2>)")
GONE = ["aten::item", "aten::_local_scalar_dense", "aten::clone", "aten::detach"]


def trace(batch: int, with_syncs: bool) -> dict:
    """Three ProfilerStep windows of 1 ms (the first is warm-up). Per step, with
    k = batch / 8: aten::linear > aten::addmm (20 k µs) -> the GEMM (10 k µs),
    aten::relu (5 k µs) -> its kernel (2 k µs); with_syncs adds aten::item >
    aten::_local_scalar_dense (40 and 38 µs), aten::clone (6 µs) and
    aten::detach (2 µs)."""
    k = batch / 8
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
          {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
    ext = corr = 0

    def op(name, ts, dur, dims):
        nonlocal ext
        ext += 1
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
                   "dur": dur, "args": {"External id": ext, "Input Dims": dims}})

    def launch(ts, name, dts, ddur):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": ts, "dur": 4, "args": {"correlation": corr, "External id": ext}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": dts,
                   "dur": ddur, "args": {"correlation": corr, "External id": ext, "device": 0,
                                         "stream": 7}})

    for n in (1, 2, 3):
        t = 1000 * (n - 1)
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1,
                   "tid": 1, "ts": t, "dur": 1000})
        op("aten::linear", t + 5, 30 * k, [[batch, 64], [256, 64], [256]])
        op("aten::addmm", t + 6, 20 * k, [[256], [batch, 64], [64, 256]])
        launch(t + 10, GEMM, t + 300, 10 * k)
        op("aten::relu", t + 400, 5 * k, [[batch, 256]])
        launch(t + 401, RELU, t + 600, 2 * k)
        if with_syncs:
            op("aten::item", t + 700, 40, [[]])
            op("aten::_local_scalar_dense", t + 701, 38, [[]])
            op("aten::clone", t + 800, 6, [[batch, 256]])
            op("aten::detach", t + 900, 2, [[batch, 256]])
    return {"schemaVersion": 1, "traceEvents": ev}


@pytest.fixture
def runs(tmp_path):
    a = make_run(tmp_path / "a", planted(10), items=8, profile=3, trace=trace(8, True))
    b = make_run(tmp_path / "b", planted(20), items=32, profile=3, trace=trace(32, False))
    return a, b


def test_json_matches_by_name_and_judges_per_item(runs):
    a, b = runs
    r = run_cli("diff", str(a), str(b), "--json")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)["trace"]
    assert t["basis"] == "per_steady_step"
    assert t["per_item"] == {"items_per_step_a": 8, "items_per_step_b": 32}
    rows = {r["name"]: r for r in t["rows"]}
    # Gone entirely, per item: item 40 µs / 8 = 5 µs, _local_scalar_dense 4.75 µs, ...
    for name in GONE:
        assert rows[name]["status"] == "removed" and rows[name]["entirely"], rows[name]
    assert rows["aten::item"]["a"] == {"calls": 1, "time_ns": 40000, "time_per_item_ns": 5000}
    # The matmul's shapes changed with the batch: one changed row with both sides'
    # shapes, 4x per step and the same per item.
    addmm = rows["aten::addmm"]
    assert addmm["status"] == "changed" and addmm["shapes_changed"] and not addmm["time_changed"]
    assert addmm["input_dims"] is None
    assert addmm["input_dims_a"] == ["[[256], [8, 64], [64, 256]]"]
    assert addmm["input_dims_b"] == ["[[256], [32, 64], [64, 256]]"]
    assert (addmm["a"]["time_ns"], addmm["b"]["time_ns"]) == (20000, 80000)
    assert addmm["a"]["time_per_item_ns"] == addmm["b"]["time_per_item_ns"] == 2500
    assert addmm["ratio"] == 4 and addmm["ratio_per_item"] == 1
    # No row is an op removed and re-added with other shapes.
    assert not [r for r in t["rows"] if r["status"] == "added"]
    # Kernels: 4x per step, the same per item; unchanged rows, not regressions.
    assert GEMM not in rows and RELU not in rows
    k = t["totals"]["kernel"]
    assert (k["a_time_ns"], k["b_time_ns"]) == (12000, 48000)
    assert k["a_time_per_item_ns"] == k["b_time_per_item_ns"] == 1500
    # The view lists what is gone entirely first, largest first per item.
    from fastenough.render.diff_text import view_rows

    assert [r["name"] for r in view_rows(t)][:4] == GONE


def test_terminal_at_80_columns(runs):
    a, b = runs
    r = run_cli("diff", str(a), str(b), env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    start = next(i for i, line in enumerate(lines) if line.startswith("Trace diff per item"))
    assert lines[start].rstrip() == ("Trace diff per item (A 8, B 32 items per step; "
                                     "steady steps A 2, B 2)")
    assert lines[start + 1].split() == ["name,", "input", "shapes", "calls", "A", "→", "B",
                                        "A/item", "B/item", "change"]
    marked = [line.split() for line in lines[start:] if re.match(r"(gone|new|~|-|\+) ", line)]
    # Gone entirely, first, with their whole names (the name column has room),
    # per item: aten::item 40 µs per step / 8 items.
    assert [m[:2] for m in marked[:4]] == [["gone", n] for n in GONE], marked
    assert marked[0][2:] == ["1", "→", "-", "5.0", "µs", "-", "-5.0", "µs"]
    # Shape changes: A's and B's shapes on dim lines of their own under the name.
    at = next(i for i, line in enumerate(lines) if " aten::addmm " in line)
    assert lines[at].startswith("~ ")
    assert lines[at + 1].split() == ["A", "[[256],", "[8,", "64],", "[64,", "256]]"]
    assert lines[at + 2].split() == ["B", "[[256],", "[32,", "64],", "[64,", "256]]"]
    # Per item: the kernels cost the same (1.00x), though 4x per step.
    kernel = next(line for line in lines if line.startswith("│ kernel"))
    assert kernel.rstrip(" │").endswith("1.00x"), kernel
    assert "steady time per item" in r.stdout


def test_long_kernel_names_are_cut_in_the_middle_at_80_columns(tmp_path):
    # Traces without items per step: per step, and the kernels changed (2x).
    a = make_run(tmp_path / "a", planted(10), items=8, trace=trace(8, False))
    b = make_run(tmp_path / "b", planted(10), items=8, trace=trace(16, False))
    (a / "steps.jsonl").write_text("")  # no items known: per step
    r = run_cli("diff", str(a), str(b), env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    (relu,) = [line for line in lines if "at::native::vector" in line]
    # Head and tail of the name, an ellipsis between: 36 characters of it here
    # (80 columns less the figures), where the old table left 5 to 7.
    cut = next(part for part in relu.split("  ") if "…" in part).strip()
    assert cut == "at::native::vectorized_…<char*, 2> >", relu
    (gemm,) = [line for line in lines if "cutlass::Kernel<" in line]
    assert "cutlass::Kernel<cutlass…3_nn_align4>" in gemm
    # Per step here (A's steps do not count items): 2x per step is a change.
    assert relu.rstrip().endswith("2.0 µs   4.0 µs   +2.0 µs"), relu
    j = run_cli("diff", str(a), str(b), "--json")
    names = {r["name"] for r in json.loads(j.stdout)["trace"]["rows"]}
    assert RELU in names and GEMM in names  # whole in JSON
