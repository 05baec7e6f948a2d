"""A long trace and a trace of many devices give a bounded report (issue 34,
item 9): each rank lists at most 1000 steps (the first and last 500 and its
longest steady step) and its 256 busiest devices, says how many it left out,
and its counts and percentiles stay those of every step. A merged report
(from rank summaries, which list every row) equals analyze's."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import run_cli
from typed_reports import Partial, typed

from fastenough.render.bounded import listed_indices, steady_rows
from fastenough.schema import report_schema

STEPS = 20_000


def step_trace(path: Path, n: int = STEPS, rank: int | None = None) -> list[int]:
    """n ProfilerStep windows, step i lasting (i % 10 + 1) us, each with one
    kernel; their durations in ns."""
    events = []
    durations = []
    ts = 1000
    for i in range(n):
        dur = i % 10 + 1
        durations.append(dur * 1000)
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}",
                       "pid": 1, "tid": 1, "ts": ts, "dur": dur})
        events.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7,
                       "ts": ts, "dur": 0.5, "args": {"device": 0, "stream": 7}})
        ts += 20
    doc = {"schemaVersion": 1, "traceEvents": events}
    if rank is not None:
        doc["distributedInfo"] = {"rank": rank, "world_size": 2, "backend": "nccl"}
    path.write_text(json.dumps(doc))
    return durations


def percentile(values: list[int], q: float) -> float:
    """numpy's default (linear) percentile."""
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _analyze(*args) -> dict:
    r = run_cli("analyze", "--json", *args)
    assert r.returncode in (0, 5), r.stderr
    return json.loads(r.stdout)


def test_a_long_trace_lists_1000_steps_and_summarises_the_rest(tmp_path):
    durations = step_trace(tmp_path / "t.json")
    report = _analyze(tmp_path / "t.json")
    jsonschema.Draft202012Validator(report_schema()).validate(report)

    steps = report["steps"]
    # Over all 20000 steps (1..10 us, 2000 each): by hand, median 5.5 us, p10
    # 1.9 us, p90 9.1 us; the same as numpy's percentiles of every duration.
    assert steps["count"] == STEPS
    for key, q, by_hand in (("median_ns", 0.5, 5500), ("p10_ns", 0.1, 1900),
                            ("p90_ns", 0.9, 9100)):
        assert steps[key] == pytest.approx(by_hand, rel=1e-9)
        assert steps[key] == pytest.approx(percentile(durations, q), rel=1e-9)
    rank = steps["per_rank"][0]
    assert rank["count"] == STEPS
    begin = rank["steady_begin"]
    steady = durations[begin:]
    assert steps["steady_count"] == len(steady)
    for q in (0.1, 0.5, 0.9):
        key = {0.1: "steady_p10_ns", 0.5: "steady_median_ns", 0.9: "steady_p90_ns"}[q]
        assert steps[key] == pytest.approx(percentile(steady, q), rel=1e-9), key

    # The lists: the first 500, the last 500, and the longest steady step
    # (10 us: the first one, step 9, is already among the first 500).
    omitted = {"count": STEPS - 1000, "kept": [[0, 500], [STEPS - 500, STEPS]]}
    windows = rank["windows"]
    assert rank["omitted"] == omitted
    assert len(windows) == 1000
    assert [w["number"] for w in windows] == list(range(500)) + list(range(STEPS - 500, STEPS))
    typed_rank = typed(report).steps.per_rank[0]
    assert listed_indices(typed_rank, typed_rank.windows) == [w["number"] for w in windows]
    assert [w.dur_ns for w in steady_rows(typed_rank, typed_rank.windows)] == \
        [durations[i] for i in listed_indices(typed_rank, typed_rank.windows) if i >= begin]
    sb = report["step_breakdown"]["per_rank"][0]
    assert sb["omitted"] == omitted and len(sb["steps"]) == 1000
    assert sb["steady_count"] == len(steady)
    assert sb["worst_step"] in {s["number"] for s in sb["steps"]}
    for d in report["efficiency"]["devices"]:
        assert d["omitted"] == omitted and len(d["steps"]) == 1000
    assert len(json.dumps(report)) < 2_000_000  # it was 24 MB

    # The renderers say what is not listed.
    md = run_cli("analyze", "--md", tmp_path / "t.json")
    assert md.returncode in (0, 5), md.stderr
    assert f"19000 of {STEPS} steps of rank 0 not listed" in md.stdout


def test_the_longest_steady_step_is_listed_where_it_is(tmp_path):
    """A step in the middle, longer than all others, is listed in its place."""
    path = tmp_path / "t.json"
    step_trace(path, 3000)
    doc = json.loads(path.read_text())
    for e in doc["traceEvents"]:
        if e["name"] == "ProfilerStep#1500":
            e["dur"] = 19  # the longest step (others are at most 10 us, 20 us apart)
    path.write_text(json.dumps(doc))
    report = _analyze(path)
    rank = report["steps"]["per_rank"][0]
    assert rank["omitted"] == {"count": 1999, "kept": [[0, 500], [1500, 1501], [2500, 3000]]}
    assert rank["windows"][500]["number"] == 1500
    assert report["step_breakdown"]["per_rank"][0]["worst_step"] == 1500


def test_many_devices_list_the_busiest_and_sum_the_others(tmp_path):
    """300 devices, device d busy (d % 7 + 1) us: 256 listed, 44 summed."""
    events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1,
               "tid": 1, "ts": 0, "dur": 1000}]
    busy = []
    for d in range(300):
        dur = d % 7 + 1
        busy.append(dur * 1000)
        events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": d, "tid": 7,
                       "ts": 10, "dur": dur, "args": {"device": d, "stream": 7}})
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"traceEvents": events}))
    report = _analyze(path)
    jsonschema.Draft202012Validator(report_schema()).validate(report)
    listed = {d["device"] for d in report["devices"]}
    assert len(listed) == 256
    assert min(report["devices"][i]["busy_ns"] for i in range(256)) >= \
        max(busy[d] for d in range(300) if d not in listed)
    (row,) = report["devices_omitted"]
    assert row == {"rank": 0, "count": 44, "busy_ns": sum(busy) - sum(busy[d] for d in listed),
                   "kernel_count": 44}
    assert {d["device"] for d in report["efficiency"]["devices"]} <= listed
    assert report["top_kernels"][0]["count"] == 300  # the figures are over every device
    md = run_cli("analyze", "--md", path)
    assert "44 devices not listed" in md.stdout, md.stdout


def test_merge_of_summaries_equals_analyze_of_long_traces(tmp_path):
    """Summaries list every step; the merged report pools and bounds them as
    analyze does."""
    paths = []
    for r in (0, 1):
        paths.append(tmp_path / f"rank{r}.json")
        step_trace(paths[-1], 3000, rank=r)
    report = run_cli("analyze", "--json", "--rank-summaries", tmp_path / "sums", *paths)
    assert report.returncode in (0, 5), report.stderr
    summary = json.loads((tmp_path / "sums" / "rank0.summary.json").read_text())
    assert len(summary["steps"]["windows"]) == 3000
    merged = run_cli("merge", "--json", tmp_path / "sums")
    assert merged.returncode == report.returncode, merged.stderr
    a, b = json.loads(report.stdout), json.loads(merged.stdout)
    assert a["steps"]["count"] == 6000 and a["steps"]["per_rank"][1]["omitted"]["count"] == 2000
    a.pop("tool_version"), b.pop("tool_version")
    assert a == b


def test_steady_rows_count_from_the_first_of_all_steps():
    """steady_begin is an index among all steps, listed or not: a warmup longer
    than the listed head leaves only the tail's rows steady."""
    from fastenough.render.depth import step_breakdown_table

    rows = [{"number": i, "start_ns": 0, "end_ns": 50 if i < 500 else 5,
             "dur_ns": 50 if i < 500 else 5, "kernel_ns": 5} for i in range(500)]
    rows += [{"number": i, "start_ns": 0, "end_ns": 7 if i == 1550 else 5,
              "dur_ns": 7 if i == 1550 else 5, "kernel_ns": 5} for i in range(1500, 2000)]
    sb = {"rank": 0, "whole_trace": False, "steady_begin": 600, "steady_count": 1400,
          "steady_mean": {"kernel_ns": 5, "step_ns": 5}, "plugin_steady_count": 0,
          "plugin_steady_mean": {}, "worst_step": 1550,
          "omitted": {"count": 1000, "kept": [[0, 500], [1500, 2000]]}, "steps": rows}
    part = Partial(sb)
    assert [r.number for r in steady_rows(part, part.steps)] == list(range(1500, 2000))
    assert listed_indices(part, part.steps)[499:501] == [499, 1500]
    table = step_breakdown_table(Partial({"step_breakdown": {"per_rank": [sb]},
                                          "devices": [{}]}))
    assert "worst step (#1550)" in table.header
    assert listed_indices(Partial({}), part.steps[:3]) == [0, 1, 2]


def test_a_large_document_is_written_compact():
    """Python's json encodes an indented document in Python: a report over
    8 MiB is written compact (outputs/json_output.py)."""
    from fastenough.outputs import json_output

    small = {"a": [1, 2]}
    assert json_output.dumps(small) == json.dumps(small, indent=2)
    big = {"rows": [{"n": i} for i in range(1_000_000)]}
    text = json_output.dumps(big)
    assert "\n" not in text and json.loads(text) == big
