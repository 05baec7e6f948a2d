"""Snapshot tests of the findings on the waste fixture and on every HTA corpus
trace (corpus ones skip when the corpus is absent). Compared exactly; to
accept a deliberate change, regenerate with
    python tests/data/snapshots/update_snapshots.py
or run pytest with FASTENOUGH_UPDATE_SNAPSHOTS=1, and review the diff."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest
from conftest import DATA

_spec = importlib.util.spec_from_file_location(
    "update_snapshots", DATA / "snapshots" / "update_snapshots.py")
snap = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snap)

UPDATE = os.environ.get("FASTENOUGH_UPDATE_SNAPSHOTS") == "1"


def _check(path):
    got = snap.findings_of(path)
    target = DATA / "snapshots" / snap.snapshot_name(path)
    if UPDATE:
        target.write_text(snap.render(got), encoding="utf-8")
        return
    assert target.is_file(), f"no snapshot {target.name}; run update_snapshots.py"
    want = json.loads(target.read_text(encoding="utf-8"))
    assert json.loads(snap.render(got)) == want


@pytest.mark.parametrize("path", snap.FIXTURES, ids=lambda p: p.name)
def test_fixture_snapshot(path):
    _check(path)


@pytest.mark.parametrize("name", [snap.snapshot_name(p) for p in snap.corpus_traces()] or
                         ["corpus-absent"])
def test_corpus_snapshot(name):
    traces = {snap.snapshot_name(p): p for p in snap.corpus_traces()}
    if name not in traces:
        pytest.skip(f"HTA corpus not found at {snap.CORPUS}")
    _check(traces[name])


def test_corpus_traces_run_through_every_detector():
    traces = snap.corpus_traces()
    if not traces:
        pytest.skip(f"HTA corpus not found at {snap.CORPUS}")
    for p in traces:
        got = snap.findings_of(p)
        if "error" in got:
            # Only files that are not profiler traces may be refused.
            assert "not a trace" in got["message"], (p, got)
            continue
        for f in got["findings"]:
            assert f["verdict"] in {"avoidable", "bounded", "insufficient-evidence"}
            assert f["title"] and f["action"]
