"""The core's field declarations as data (_core.describe_fields, issue 35 item 1).

Every key of a rank summary, and the declared parts of the report, with its
JSON type, unit and meaning: what the JSON Schema, the schema doc's tables and
a typed model are to be generated from. Each summary key the docs name is
declared, with a meaning.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fastenough import _core
from fastenough.errors import UsageError

DOCS = Path(__file__).resolve().parents[3] / "docs"


def _rows(document: str) -> list[dict]:
    return json.loads(_core.describe_fields(document))


def test_rank_summary_rows_are_typed_and_explained():
    rows = _rows("rank-summary")
    paths = [r["path"] for r in rows]
    assert len(paths) == len(set(paths))
    by_path = {r["path"]: r for r in rows}
    busy = by_path["$.devices[].streams[].busy_ns"]
    assert (busy["type"], busy["unit"], busy["nullable"], busy["kind"]) == (
        "integer", "ns", False, "field")
    assert by_path["$.memory[].capacity_bytes"]["nullable"] is True
    assert by_path["$.steps.windows[].dur_ns"]["kind"] == "derived"
    assert by_path["$.findings[].overlaps"]["kind"] == "optional"
    assert all(r["meaning"] and r["type"] for r in rows)
    # Every top-level key the summary's doc lists is declared.
    doc = (DOCS / "rank-summary.md").read_text()
    for key in re.findall(r"^\| `([a-z_]+)` \|", doc, flags=re.M):
        assert f"$.{key}" in by_path, key


def test_report_rows_cover_the_rank_objects():
    paths = {r["path"] for r in _rows("report")}
    for path in ("$.devices[].busy_ns", "$.steps.steady_median_ns",
                 "$.findings[].saving.share_of_step", "$.memory[].lifetimes.within_step_bytes",
                 "$.critical_path.job.per_rank[].gating_ns"):
        assert path in paths, path


def test_an_unknown_document_is_a_clear_error():
    with pytest.raises(UsageError, match="no declared document 'nope'"):
        _core.describe_fields("nope")


def test_meta_json_s_record_is_declared_key_by_key():
    """meta.json's keys are Recorded() in meta (written only when the file had them,
    each typed), and so are the agents' records: no part of the report is open."""
    by_path = {r["path"]: r for r in _rows("report")}
    for key in ("schema", "command", "cwd", "git", "agent_opts", "start_wall_ns",
                "end_wall_ns", "sampler", "devices", "visible_devices", "other_processes"):
        row = by_path[f"$.meta.{key}"]
        assert (row["kind"], row["required"]) == ("recorded", False), key
    assert by_path["$.meta.git"]["nullable"] is True  # null: not a git work tree
    assert by_path["$.meta.sampler.hz"]["type"] == "number"
    assert by_path["$.meta.visible_devices.value"]["nullable"] is True
    assert by_path["$.meta.devices[].uuid"]["type"] == "string"
    assert by_path["$.meta.agents[].step_split"]["type"] == "object of objects"
    assert by_path["$.meta.agents[].step_split.*.data_ns_p10"]["kind"] == "recorded"
    assert by_path["$.meta.agents[].profile"]["nullable"] is True
    assert [r["path"] for r in by_path.values() if r["kind"] == "extra"] == []


def test_a_report_whose_meta_record_is_mistyped_is_refused_by_the_loader():
    from fastenough.errors import MalformedReportError
    from fastenough.report import load

    doc = json.loads((Path(__file__).resolve().parents[2] / "data" / "ranks"
                      / "gen4.report.json").read_text())
    doc["meta"]["git"] = {"revision": 5, "dirty": False}
    with pytest.raises(MalformedReportError, match=r"meta\.git\.revision"):
        load(json.dumps(doc))
