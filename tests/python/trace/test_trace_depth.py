"""The trace in depth (docs/trace-depth.md) through the command line: the
per-step breakdown, kernel efficiency, critical path, memory and graph parts of
the terminal and Markdown reports, with figures hand-computed in
tests/data/golden/README.md (depth_trace.json); names from the trace shown as
data; a line saying why where the trace lacks the data; and every trace of the
HTA corpus analysed with the new sections where its data allows them (skipped
without the corpus).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPUS, DATA, run_cli
from typed_reports import Partial, typed

from fastenough.render import depth

DEPTH = DATA / "golden" / "depth_trace.json"


def _report(path: Path) -> dict:
    r = run_cli("analyze", "--json", "--no-progress", path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_memory_timeline_of_the_golden_trace():
    m = _report(DEPTH)["memory"][0]
    # 120 slices of [1050, 1700] µs, each the most allocated at any time in
    # it: the first holds the first event (5000 B); the peak (7000 B, from
    # 1300 µs) lasts until the free in the last slice, so that one shows 7000.
    assert len(m["timeline"]) == 120
    assert m["timeline"][0] == [1050000, 5000]
    assert max(v for _, v in m["timeline"]) == 7000
    assert m["timeline"][-1][1] == 7000
    assert m["end_allocated_bytes"] == 6000


def test_terminal_report_shows_the_depth_parts():
    r = run_cli("analyze", "--no-progress", DEPTH, env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    # Steady mean kernel 440 µs of a 1 ms step; worst step #1; the plugin's step.
    assert "Where the step went (TensorBoard plugin categories, 2 steady steps)" in out
    assert "440.0 µs" in out and "44.0%" in out and "worst step (#1)" in out
    # Steady efficiency: 0.44, 0.2775, 17.3077%, 300/880.
    assert ("rank 0 device 0: GPU utilisation 44.0%, est. SM efficiency 27.8%, "
            "est. achieved occupancy 17.3%, tensor cores 34.1% of kernel time") in out
    # 1175 µs over 2 steps; host 185, stream 7 860, launch delays 130; sync 290.
    assert ("587.5 µs per step, over 2 steady steps: host 15.7%, stream 7 73.2%, "
            "launch delays 11.1%; 24.7% of it while the host waited in a sync") in out
    assert "ampere_sgemm_128x64_nn (kernel) 38.3%" in out
    assert "cuda:0: peak allocated 6.8 KiB in aten::empty, reserved then 7.8 KiB" in out
    assert "1 graph replays, 2 kernels linked to them (400.0 µs of device time)" in out


def test_markdown_report_shows_the_depth_parts():
    r = run_cli("analyze", "--md", "--no-progress", DEPTH)
    assert r.returncode == 0, r.stderr
    md = r.stdout
    assert "## Trace in depth" in md
    assert "| Kernel | 440.0 µs | 44.0% | 480.0 µs | 480.0 µs |" in md
    assert "| Other | 415.0 µs | 41.5% | 240.0 µs | 240.0 µs |" in md
    assert "### Critical path" in md and "### Memory" in md and "### Graphs" in md


def test_names_from_the_trace_are_data(tmp_path):
    doc = json.loads(DEPTH.read_text())
    hostile = "[bold red]gemm[/bold red]<b>&amp;|x"
    for e in doc["traceEvents"]:
        if e.get("name") == "ampere_sgemm_128x64_nn":
            e["name"] = hostile
    p = tmp_path / "hostile.json"
    p.write_text(json.dumps(doc))
    term = run_cli("analyze", "--no-progress", p, env={"COLUMNS": "300"})
    assert term.returncode == 0, term.stderr
    assert hostile in term.stdout + term.stderr  # printed as written, not as markup
    md = run_cli("analyze", "--md", "--no-progress", p).stdout
    line = next(x for x in md.splitlines() if x.startswith("- on the path:"))
    # Markdown text as render/escape.py writes it: brackets, pipes and
    # entities escaped, no tag left to render.
    from fastenough.render.escape import md_text

    assert md_text(hostile) in line
    assert "<b>" not in line


def test_parts_say_why_they_are_missing(tmp_path):
    # A CPU-only trace without memory events: no efficiency, no memory part.
    trace = {"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
         "ts": 0, "dur": 100},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
    ]}
    p = tmp_path / "cpu.json"
    p.write_text(json.dumps(trace))
    report = _report(p)
    assert report["memory"] == [] and report["efficiency"]["devices"] == []
    lines = depth.missing_lines(typed(report))
    assert any("no device activity" in x for x in lines)
    assert any("no [memory] events" in x and "profile_memory=True" in x for x in lines)
    r = run_cli("analyze", "--no-progress", p, env={"COLUMNS": "200"})
    assert "memory timeline: no [memory] events" in r.stdout + r.stderr


def test_without_launch_figures_the_efficiency_says_so():
    report = {"efficiency": {"has_launch_args": False, "devices": [
        {"rank": 0, "device": 2, "steady": {"gpu_utilization": 0.012, "sm_efficiency": None,
                                             "achieved_occupancy_pct": None,
                                             "tensor_core_share": 0.273}}]}}
    lines = depth.efficiency_lines(Partial(report))
    assert lines[0] == "rank 0 device 2: GPU utilisation 1.2%, tensor cores 27.3% of kernel time"
    assert "no kernel launch figures" in lines[1]


CORPUS_EXPECT = {
    # trace -> parts that must be there
    "df_index_resolver/df_index_resolver.json.gz": {"memory", "launch_args", "path"},
    "negative_queue_length_values_check/rank0.json.gz": {"graphs", "launch_args", "path"},
    "critical_path/cuda_event_sync/event_sync_trace.json.gz": {"launch_args", "path",
                                                               "cuda_sync"},
    "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz": {"path"},
    "triton_example/triton_example.json.gz": {"launch_args", "triton"},
    "cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz": {"breakdown"},
}


def _corpus_traces() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.name.endswith((".json", ".json.gz"))
                  and "execution_trace/benchmark_simple_add_et" not in str(p))


@pytest.mark.parametrize("rel", sorted(CORPUS_EXPECT))
def test_corpus_traces_show_the_parts_their_data_allows(rel):
    path = CORPUS / rel
    if not path.is_file():
        pytest.skip(f"HTA corpus not found at {CORPUS}")
    r = _report(path)
    assert not [c for c in r["counters"] if c["severity"] == "error"]
    want = CORPUS_EXPECT[rel]
    assert r["step_breakdown"]["per_rank"], "every trace with cpu ops has a breakdown"
    if "memory" in want:
        m = r["memory"][0]
        assert m["device"].startswith("cuda:") and m["peak_allocated_bytes"] > 0
        assert m["peak_reserved_bytes"] >= m["peak_allocated_bytes"]
    if "launch_args" in want:
        assert r["efficiency"]["has_launch_args"]
        assert r["efficiency"]["devices"][0]["steady"]["sm_efficiency"] is not None
    elif r["efficiency"]["devices"]:
        assert r["efficiency"]["devices"][0]["steady"]["sm_efficiency"] is None
    if "path" in want:
        cp = r["critical_path"]["per_rank"][0]
        assert cp["status"] == "ok" and cp["length_ns"] > 0
        assert cp["length_ns"] == (cp["host_ns"] + cp["device_ns"] + cp["launch_delay_ns"]
                                   + cp["kernel_gap_ns"])
    if "cuda_sync" in want:
        assert r["critical_path"]["per_rank"][0]["cuda_sync_events"]
    if "graphs" in want:
        g = r["graphs"]["per_rank"][0]
        assert g["launch_count"] == 70 and g["launches_with_activity"] == 70
        assert not g["kernels_missing"] and g["kernel_count"] > 0
    if "triton" in want:
        assert r["graphs"]["per_rank"][0]["triton_kernel_count"] == 1


def test_every_corpus_trace_analyses_with_the_new_sections():
    traces = _corpus_traces()
    if not traces:
        pytest.skip(f"HTA corpus not found at {CORPUS}")
    from fastenough import _core

    for p in traces:
        r = json.loads(_core.analyze_to_json([str(p)]))
        assert not [c for c in r["counters"] if c["severity"] == "error"], p
        for key in ("step_breakdown", "efficiency", "memory", "critical_path", "graphs"):
            assert key in r, (p, key)
        for sb in r["step_breakdown"]["per_rank"]:
            for s in sb["steps"]:
                parts = sum(s[f"{c}_ns"] for c in r["step_breakdown"]["categories"])
                assert parts == s["dur_ns"], (p, s["number"])
        for cp in r["critical_path"]["per_rank"]:
            assert cp["status"] in ("ok", "no-events"), p
            assert cp["length_ns"] <= cp["window_end_ns"] - cp["window_start_ns"], p


def _launches_beside_a_cpu_op(launch_tid: int) -> dict:
    """Steps of 1000 µs: thread 1 runs a CPU op over each whole step, and
    `launch_tid` launches ten 2 µs kernels with 40 µs launch calls (the
    C++ DepthFindingsTest.SmallKernelsOffTheCriticalPath trace, in µs)."""
    ev, corr = [], 1
    for step in range(4):
        t0 = step * 1000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step + 1}",
                   "pid": 1, "tid": 1, "ts": t0, "dur": 1000})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::cpu_work", "pid": 1, "tid": 1,
                   "ts": t0, "dur": 1000})
        for k in range(10):
            at = t0 + 50 + k * 80
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": launch_tid, "ts": at, "dur": 40, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "tiny", "pid": 0, "tid": 7,
                       "ts": at + 45, "dur": 2,
                       "args": {"correlation": corr, "device": 0, "stream": 7}})
            corr += 1
    return {"traceEvents": ev}


def test_a_saving_off_the_critical_path_is_lowered_and_said(tmp_path):
    # Launched from thread 2 while the step waits for thread 1's CPU op: the
    # short kernels' launches are off the critical path, which thread 1's op
    # explains whole; small-kernels measured 38% of a step and saves nothing.
    p = tmp_path / "beside.json"
    p.write_text(json.dumps(_launches_beside_a_cpu_op(2)))
    report = _report(p)
    f = next(f for f in report["findings"] if f["code"] == "small-kernels")
    assert f["evidence"]["uncapped_share_of_step"] == pytest.approx(0.38, abs=0.005), f
    assert f["evidence"]["own_critical_path_ns_per_step"] == 0, f
    assert f["saving"]["share_of_step"] == 0 and f["verdict"] == "bounded", f
    term = run_cli("analyze", "--no-progress", p, env={"COLUMNS": "300"})
    assert "measured 38.0% of a step, lowered to the critical path's time on its events" \
        in term.stdout, term.stdout
    # Launched from thread 1 itself, the launches are the path: kept.
    p1 = tmp_path / "on_path.json"
    trace = _launches_beside_a_cpu_op(1)
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e["name"] != "aten::cpu_work"]
    p1.write_text(json.dumps(trace))
    f1 = next(f for f in _report(p1)["findings"] if f["code"] == "small-kernels")
    assert "uncapped_share_of_step" not in f1["evidence"], f1
    assert f1["saving"]["share_of_step"] == pytest.approx(0.38, abs=0.005) and \
        f1["verdict"] == "avoidable", f1


def test_the_job_path_links_two_real_ranks():
    # Two ranks of one real job (HTA's trace_filter sample, A100s, NCCL
    # SendRecv between them): 10 collectives matched on both. The job's path
    # runs from the first collective's last arrival to the last one's end, and
    # is each gating rank's work plus the collectives; rank 1 arrives last at
    # most of them and straggler-rank names it with its share of the path.
    ranks = [CORPUS / "trace_filter" / f"sampled_rank-{r}.json.gz" for r in (0, 1)]
    if not all(p.is_file() for p in ranks):
        pytest.skip("the HTA corpus is not here")
    r = run_cli("analyze", "--json", "--no-progress", *ranks)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    job = report["critical_path"]["job"]
    assert job["status"] == "ok" and job["ranks"] == 2 and job["collectives"] == 10, job
    assert job["length_ns"] == job["work_ns"] + job["transfer_ns"]
    assert job["length_ns"] == job["window_end_ns"] - job["window_start_ns"]
    gating = {g["rank"]: g for g in job["per_rank"]}
    assert sum(g["gating_ns"] for g in gating.values()) == job["work_ns"]
    assert sum(g["gating_collectives"] for g in gating.values()) == job["collectives"]
    assert gating[1]["gating_collectives"] > gating[0]["gating_collectives"], job
    straggler = next(f for f in report["findings"] if f["code"] == "straggler-rank")
    assert straggler["evidence"]["rank"] == 1
    assert straggler["evidence"]["job_critical_path_share"] == pytest.approx(
        gating[1]["gating_ns"] / job["length_ns"], abs=0.0005)
    term = run_cli("analyze", "--no-progress", *ranks, env={"COLUMNS": "300"})
    assert "across 2 ranks, linked by 10 collectives" in term.stdout
