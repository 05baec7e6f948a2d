"""`fastenough analyze TRACE --annotate OUT`: the trace written back with its
findings in it, for Perfetto UI and chrome://tracing.

What a viewer needs, checked on the written file: valid JSON; the original
events unchanged and first; per finding a named row of slices on the findings
process; every flow start with its finish; every finish ("bp": "e") inside an
event of the original trace on the same track, which is what the viewers
bind the arrow to. Our own reader loads the file back, finds every
annotation, and analyses it exactly like the original.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import REPO

EXAMPLE = REPO / "examples" / "traces" / "train_a100_rank3.json.gz"
FINDINGS_PID = (1 << 22) + 1


def load(path: Path) -> dict:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def ours(doc: dict) -> list[dict]:
    return [e for e in doc["traceEvents"] if e.get("cat") == "fastenough"]


def check_viewer_structure(original: dict, annotated: dict, report: dict) -> None:
    n = len(original["traceEvents"])
    assert annotated["traceEvents"][:n] == original["traceEvents"]
    assert {k: v for k, v in annotated.items() if k != "traceEvents"} == \
        {k: v for k, v in original.items() if k != "traceEvents"}
    added = annotated["traceEvents"][n:]
    assert added and all(e["cat"] == "fastenough" for e in added)

    rows = {e["tid"]: e["args"]["name"] for e in added
            if e["ph"] == "M" and e["name"] == "thread_name"}
    assert len(rows) == len(report["findings"])
    for number, finding in enumerate(report["findings"], start=1):
        assert rows[number] == f"{number}. {finding['code']}"
        slices = [e for e in added if e["ph"] == "X" and e["tid"] == number]
        assert slices, finding["code"]
        for s in slices:
            assert s["pid"] == FINDINGS_PID
            assert s["args"]["code"] == finding["code"]
            assert s["args"]["title"] == finding["title"]
            assert s["dur"] >= 0

    starts = {e["id"]: e for e in added if e["ph"] == "s"}
    finishes = {e["id"]: e for e in added if e["ph"] == "f"}
    assert starts.keys() == finishes.keys()
    by_track: dict[tuple, list[tuple[float, float]]] = {}
    for e in original["traceEvents"]:
        if e.get("ph") == "X" and "ts" in e:
            by_track.setdefault((e.get("pid"), e.get("tid")), []).append(
                (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))))
    for fid, f in finishes.items():
        assert f["bp"] == "e"
        spans = by_track.get((f["pid"], f["tid"]), [])
        assert any(a <= f["ts"] <= b for a, b in spans), f"arrow {fid} binds to no event: {f}"
        s = starts[fid]
        assert s["pid"] == FINDINGS_PID
        # The start lies inside one of its finding's slices.
        assert any(x["tid"] == s["tid"] and x["ts"] <= s["ts"] <= x["ts"] + x["dur"]
                   for x in added if x["ph"] == "X")
    instants = [e for e in added if e["ph"] == "i"]
    assert len(instants) == len(finishes)


def test_example_trace_round_trip(cli, tmp_path):
    out = tmp_path / "annotated.json.gz"
    proc = cli("analyze", "--json", "--annotate", out, EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert f"annotated trace written to {out}" in proc.stderr
    assert len(report["findings"]) == 5
    original, annotated = load(EXAMPLE), load(out)
    check_viewer_structure(original, annotated, report)

    from fastenough import _core

    back = _core.trace_annotations(str(out))
    assert len(back) == len(ours(annotated))
    names = {name for ph, name, ts in back if ph == "i"}
    # Every finding that points at events of this trace is found again by code.
    assert {"fastenough: sync-in-loop", "fastenough: gpu-idle-host-bound",
            "fastenough: comm-not-overlapped", "fastenough: transfer-in-loop"} <= names
    assert _core.trace_annotations(str(EXAMPLE)) == []

    # The annotations never enter the analysis: the same report, but the path.
    again = json.loads(cli("analyze", "--json", out).stdout)
    for key in report:
        if key not in ("inputs", "counters"):
            assert again[key] == report[key], key
    for c in report["counters"] + again["counters"]:
        c.pop("per_input")
    assert again["counters"] == report["counters"]


def test_plain_json_output_and_terminal_report(cli, tmp_path):
    out = tmp_path / "annotated.json"
    proc = cli("analyze", EXAMPLE, "--annotate", out)
    assert proc.returncode == 0, proc.stderr
    assert "Findings" in proc.stdout
    with open(out) as f:  # not gzip
        doc = json.load(f)
    assert ours(doc)


def test_every_corpus_trace_with_findings_annotates(cli, tmp_path, corpus_dir):
    traces = sorted(p for p in corpus_dir.rglob("*.json*") if p.is_file())
    annotated_any = 0
    for i, trace in enumerate(traces):
        if trace.stat().st_size > 60 * 1024 * 1024:
            continue
        out = tmp_path / f"{i}.json.gz"
        proc = cli("analyze", "--json", "--annotate", out, trace)
        if proc.returncode == 2:  # not a trace (the corpus holds execution traces too)
            assert "Traceback" not in proc.stderr
            assert not out.exists()
            continue
        report = json.loads(proc.stdout)
        if not report["findings"]:
            continue
        check_viewer_structure(load(trace), load(out), report)
        annotated_any += 1
    assert annotated_any >= 3


@pytest.mark.parametrize("case", ["two traces", "same file", "no directory", "truncated"])
def test_errors_exit_2_and_write_nothing(cli, tmp_path, case):
    out = tmp_path / "out.json.gz"
    if case == "two traces":
        args, needle = [EXAMPLE, EXAMPLE], "one trace"
    elif case == "same file":
        copy = tmp_path / "t.json.gz"
        copy.write_bytes(EXAMPLE.read_bytes())
        args, needle, out = [copy], "overwrite its input", copy
    elif case == "no directory":
        out = tmp_path / "missing" / "out.json.gz"
        args, needle = [EXAMPLE], "no such directory"
    else:
        text = gzip.decompress(EXAMPLE.read_bytes())
        cut = tmp_path / "cut.json"
        cut.write_bytes(text[: len(text) // 2])
        args, needle = [cut], "truncated"
    before = out.read_bytes() if out.exists() else None
    proc = cli("analyze", "--annotate", out, *args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert needle in proc.stderr, proc.stderr
    assert (out.read_bytes() if out.exists() else None) == before
    assert not list(tmp_path.rglob("*.tmp"))
