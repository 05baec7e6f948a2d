"""Multi-rank analysis with bounded memory (docs/rank-summary.md): the report
is the one the pipeline gave when it kept every rank's events (goldens of
tests/data/ranks/), `analyze --rank-summaries DIR` writes one summary per
rank, and `fastenough merge` turns them into that same report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, DATA, REPO, run_cli

from fastenough import _core

GOLDEN = DATA / "ranks"


def _gen_ranks(directory: Path, ranks: int, layers: int = 2) -> list[str]:
    """bench/gen_trace.py's ranks (deterministic), as gen_rank<R>.json."""
    names = []
    for r in range(ranks):
        name = f"gen_rank{r}.json"
        subprocess.run([sys.executable, str(REPO / "bench" / "gen_trace.py"), "--steps", "3",
                        "--layers", str(layers), "--rank", str(r), "--world-size", str(ranks),
                        "--seed", str(r), "-q", "-o", str(directory / name)], check=True)
        names.append(name)
    return names


def _straggler(directory: Path, first_rank: int = 0) -> list[str]:
    """The straggler pair, as ranks first_rank and first_rank + 1 (beside
    other ranks, a job takes one input per rank)."""
    names = ["straggler_rank0.json", "straggler_rank1.json"]
    for i, n in enumerate(names):
        text = (DATA / "detectors" / n).read_text()
        if first_rank:
            old = f'"rank":{i},"world_size":2'
            assert old in text
            text = text.replace(old, f'"rank":{first_rank + i},"world_size":{first_rank + 2}')
        (directory / n).write_text(text)
    return names


def _without_version(text: str) -> str:
    return re.sub(r'"tool_version": "[^"]*"', '"tool_version": "-"', text, count=1)


@pytest.mark.parametrize("case", ["gen4", "straggler"])
def test_the_report_is_the_one_before_stores_were_freed(case, tmp_path, monkeypatch):
    names = _gen_ranks(tmp_path, 4) if case == "gen4" else _straggler(tmp_path)
    monkeypatch.chdir(tmp_path)  # the goldens name their inputs relative to it
    golden = _without_version((GOLDEN / f"{case}.report.json").read_text())
    for threads in (1, 3):
        assert _without_version(_core.analyze_to_json(names, None, threads)) == golden, threads


def _analyze_then_merge(tmp_path: Path, paths: list[str], cwd: Path) -> tuple[str, str, Path]:
    sums = tmp_path / "sums"
    a = run_cli("analyze", "--json", "--no-progress", "--threads", "2", "--rank-summaries",
                sums, *paths, cwd=cwd)
    assert a.returncode in (0, 5), a.stderr
    assert "rank summar" in a.stderr and "written to" in a.stderr
    m = run_cli("merge", "--json", sums, cwd=cwd)
    assert m.returncode == a.returncode, m.stderr
    return a.stdout, m.stdout, sums


def test_merge_of_the_summaries_is_the_analyzed_report(tmp_path):
    names = _gen_ranks(tmp_path, 4) + _straggler(tmp_path, first_rank=4)
    analyzed, merged, sums = _analyze_then_merge(tmp_path, names, tmp_path)
    assert merged == analyzed
    files = sorted(p.name for p in sums.iterdir())
    assert files == [f"rank{r}.summary.json" for r in range(6)]
    # Files named one by one merge in the order given; the report is the same.
    ordered = [sums / f for f in sorted(files, key=lambda f: int(f[4:f.index(".")]))]
    again = run_cli("merge", "--json", *ordered, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == analyzed


def test_merge_keeps_the_straggler(tmp_path):
    analyzed, merged, sums = _analyze_then_merge(tmp_path, _straggler(tmp_path), tmp_path)
    assert merged == analyzed
    assert sorted(p.name for p in sums.iterdir()) == ["rank0.summary.json",
                                                     "rank1.summary.json"]
    report = json.loads(merged)
    (f,) = [f for f in report["findings"] if f["code"] == "straggler-rank"]
    assert f["evidence"]["rank"] == 1
    # A summary holds the collectives the detector matched: 6 all-reduces.
    summary = json.loads((sums / "rank1.summary.json").read_text())
    assert summary["schema"] == "fastenough.rank-summary/1"
    (c,) = summary["collectives"]
    assert c["name"].startswith("ncclDevKernel_AllReduce") and len(c["calls"]) == 6
    assert all(end > start for start, end in c["calls"])


def test_depth_and_corpus_ranks_merge_to_the_same_report(tmp_path):
    # depth_trace names no rank (rank 0); the small trace goes beside it as
    # rank 1 (one input per rank); the corpus pair is a job of its own.
    small = (DATA / "golden" / "small_step_trace.json").read_text()
    old = '"rank": 0,\n  "world_size": 1'
    assert old in small
    (tmp_path / "small_rank1.json").write_text(small.replace(old, '"rank": 1,\n  "world_size": 2'))
    jobs = [[str(DATA / "golden" / "depth_trace.json"), str(tmp_path / "small_rank1.json")]]
    pair = CORPUS / "trace_filter"
    if pair.is_dir():
        jobs.append([str(pair / "sampled_rank-0.json.gz"), str(pair / "sampled_rank-1.json.gz")])
    for i, paths in enumerate(jobs):
        (tmp_path / str(i)).mkdir()
        analyzed, merged, _ = _analyze_then_merge(tmp_path / str(i), paths, tmp_path)
        assert merged == analyzed
        if i == 0:
            report = json.loads(merged)
            assert report["memory"] and report["graphs"]["per_rank"]  # depth_trace's parts


def test_every_summary_key_is_documented(tmp_path):
    _, _, sums = _analyze_then_merge(tmp_path, _straggler(tmp_path), tmp_path)
    doc = (REPO / "docs" / "rank-summary.md").read_text()
    summary = json.loads((sums / "rank0.summary.json").read_text())
    for key in summary:
        assert f"| `{key}` |" in doc, key


def test_merge_refuses_what_is_not_a_summary(tmp_path):
    report = tmp_path / "report.json"
    report.write_text('{"schema": "fastenough.report/1"}')
    r = run_cli("merge", report)
    assert r.returncode == 2 and "not a fastenough.rank-summary/1 document" in r.stderr
    assert "Traceback" not in r.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_cli("merge", empty)
    assert r.returncode == 2 and "no *.summary.json files" in r.stderr
    r = run_cli("merge", empty, report)
    assert r.returncode == 2 and "must be the only SUMMARY" in r.stderr
    _, _, sums = _analyze_then_merge(tmp_path, _straggler(tmp_path), tmp_path)
    broken = sums / "rank1.summary.json"
    broken.write_text(broken.read_text().replace('"busy_ns":', '"busy_nz":', 1))
    r = run_cli("merge", sums)
    assert r.returncode == 2, r.stderr
    assert "rank1.summary.json: $.devices[0].busy_ns: missing" in r.stderr
    r = run_cli("analyze", "--rank-summaries", report, DATA / "detectors" /
                "straggler_rank0.json")
    assert r.returncode == 2 and "not a directory" in r.stderr


def test_one_rank_given_twice_is_refused_naming_both(tmp_path):
    # Issue 34 item 14: two traces of rank 0, or one file twice, were merged
    # as two "rank 0" rows with the steps counted twice; so were two rank-0
    # summaries.
    a, b = _straggler(tmp_path)
    (tmp_path / "copy.json").write_text((tmp_path / a).read_text())
    r = run_cli("analyze", "--json", a, "copy.json", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"{a} and copy.json both hold rank 0" in r.stderr
    assert "Traceback" not in r.stderr and not r.stdout
    r = run_cli("analyze", "--json", a, b, a, cwd=tmp_path)
    assert r.returncode == 2 and f"{a} is given twice" in r.stderr, r.stderr
    r = run_cli("analyze", "--json", a, f"./{a}", cwd=tmp_path)
    assert r.returncode == 2 and f"{a} and ./{a} are the same file" in r.stderr, r.stderr
    # Two rank-0 summaries.
    for name, trace in (("one", a), ("two", "copy.json")):
        s = run_cli("analyze", "--rank-summaries", tmp_path / name, trace, cwd=tmp_path)
        assert s.returncode == 0, s.stderr
    r = run_cli("merge", "--json", tmp_path / "one" / "rank0.summary.json",
                tmp_path / "two" / "rank0.summary.json", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert (f"{tmp_path / 'one' / 'rank0.summary.json'} and "
            f"{tmp_path / 'two' / 'rank0.summary.json'} both hold rank 0") in r.stderr


@pytest.mark.parametrize("rank", ['"0; rm -rf /"', "4611686018427387904"])
def test_a_rank_that_is_no_rank_is_unknown_and_said(tmp_path, rank):
    a, _ = _straggler(tmp_path)
    text = (tmp_path / a).read_text().replace('"rank":0,', f'"rank":{rank},', 1)
    (tmp_path / "odd.json").write_text(text)
    r = run_cli("analyze", "--json", "odd.json", cwd=tmp_path)
    assert r.returncode == 5, r.stderr  # data lost: the rank
    report = json.loads(r.stdout)
    assert [c["name"] for c in report["counters"] if c["name"] == "rank_unusable"]
    assert "rank_unusable" in r.stderr
    # Beside the real rank 0 it is refused, not merged into it.
    r = run_cli("analyze", "--json", a, "odd.json", cwd=tmp_path)
    assert r.returncode == 2 and "without a usable distributedInfo.rank" in r.stderr, r.stderr


def test_sixteen_ranks_render_as_distributions(tmp_path):
    names = _gen_ranks(tmp_path, 16, layers=1)
    report = json.loads(_core.analyze_to_json([str(tmp_path / n) for n in names], None, 2))
    from typed_reports import build_view, typed

    from fastenough.render.ranks import idle_share

    devices = build_view(report).devices
    labels = [row[0] for row in devices.rows]
    assert labels[:3] == ["min", "median", "max"] and len(labels) == 6
    idle = sorted(typed(report).devices, key=idle_share, reverse=True)
    assert labels[3:] == [str(d.rank) for d in idle[:3]]  # the 3 most idle, by rank
    # min / median / max of the busy column, computed here by hand.
    busy = sorted(d["busy_ns"] / d["span_ns"] for d in report["devices"])
    assert [row[3] for row in devices.rows[:3]] == [
        f"{100 * busy[0]:.1f}%", f"{100 * (busy[7] + busy[8]) / 2:.1f}%", f"{100 * busy[-1]:.1f}%"]
    assert "16 devices on 16 ranks" in devices.note
    md = run_cli("analyze", "--md", *names, cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    term = run_cli("analyze", *names, cwd=tmp_path)
    assert term.returncode == 0, term.stderr
    for text in (md.stdout, term.stdout):
        assert "16 devices on 16 ranks" in text
        # No table lists the ranks one by one: rank 8 is named only if it is among the worst.
        assert text.count("A100") <= 2 * 3 + 2, text
    assert re.search(r"^\| min \| 16 devices \|", md.stdout, re.M)


def test_memory_and_graph_lines_of_many_ranks():
    from typed_reports import Partial

    from fastenough.render import depth

    gib = 2**30
    # Six ranks: peaks 1..6 GiB (rank 5 the highest), graph replays on ranks 0-4.
    memory = [{"rank": r, "device": "cuda:0", "device_type": 1,
               "peak_allocated_bytes": (r + 1) * gib, "peak_reserved_bytes": (r + 2) * gib,
               "peak_op": "aten::mm" if r == 5 else None,
               "lifetimes": {"live_at_start_bytes": gib, "within_step_bytes": r * gib,
                             "outlive_step_bytes": 0}} for r in range(6)]
    graphs = [{"rank": r, "launch_count": 10 * (r + 1), "kernels_missing": r == 4,
               "launches_without_activity": 1 if r == 4 else 0, "compiled_regions": []}
              for r in range(5)] + [{"rank": 5, "launch_count": 0, "compiled_regions": [
                  {"name": "Torch-Compiled Region: 0/0", "kernel_count": 3,
                   "triton_kernel_count": 2, "kernel_ns": 1500}]}]
    report = Partial({"memory": memory, "graphs": {"per_rank": graphs}})
    mem = depth.memory_lines(report)
    assert mem[0] == ("6 memory devices on 6 ranks: peak allocated min 1.0 GiB / median 3.5 GiB "
                      "/ max 6.0 GiB; reserved peak min 2.0 GiB / median 4.5 GiB / max 7.0 GiB")
    assert mem[1] == ("highest peaks: rank 5 cuda:0 (6.0 GiB in aten::mm), rank 4 cuda:0 "
                      "(5.0 GiB), rank 3 cuda:0 (4.0 GiB)")
    assert mem[2].startswith("by lifetime: held before the trace began min 1.0 GiB / median "
                             "1.0 GiB / max 1.0 GiB; allocated and freed within a step min 0 B")
    g = depth.graphs_lines(report)
    assert g[0].startswith("graph replays on 5 ranks: min 10 / median 30 / max 50 per rank; "
                           "recorded without their kernels on 1 rank (4)")
    assert g[1].startswith("torch.compile regions on 1 rank; rank 5: Torch-Compiled Region: 0/0")
    # Four ranks or fewer: one line (or two) per device, as before.
    assert len(depth.memory_lines(Partial({"memory": memory[:4]}))) == 8
