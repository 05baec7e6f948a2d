"""`fastenough report` of a saved report.json reads it once, with the typed loader
(issue 35 item 3): the loader decides what is a report, for every format (--json
too), and --json writes the document as it was read, byte for byte what it wrote
before the loader read it."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, run_cli

from fastenough.outputs import json_output

SAVED = DATA / "ranks" / "gen4.report.json"


def _run_dir(tmp_path, doc) -> object:
    d = tmp_path / "run"
    d.mkdir()
    (d / "meta.json").write_text("{}")
    (d / "report.json").write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return d


@pytest.mark.parametrize("where", ["run_dir", "file"])
def test_json_of_a_saved_report_is_the_document_as_it_was(tmp_path, where):
    doc = json.loads(SAVED.read_text())
    d = _run_dir(tmp_path, SAVED.read_text())
    r = run_cli("report", "--json", d if where == "run_dir" else d / "report.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == json_output.dumps(doc) + "\n"


@pytest.mark.parametrize("fmt", ["--json", "--md", "--terminal"])
def test_a_damaged_saved_report_is_refused_by_the_typed_loader(tmp_path, fmt):
    doc = json.loads(SAVED.read_text())
    doc["findings"][0]["saving"]["share_of_step"] = "a lot"
    d = _run_dir(tmp_path, doc)
    r = run_cli("report", fmt, d)
    (d / "report.json").unlink()  # damaged on purpose: not one for the invariants' check
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert ("report.json: not a valid fastenough.report/1 document: "
            "report.findings[0].saving.share_of_step: expected a number or null, got 'a lot'"
            in r.stderr), r.stderr
    assert "--reanalyze analyses the run directory again" in r.stderr


def test_a_run_dir_whose_report_json_is_no_report_is_refused_naming_its_schema(tmp_path):
    d = _run_dir(tmp_path, {"schema": "fastenough.ab/1", "verdict": "faster"})
    r = run_cli("report", "--json", d)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert ("report.json: not a valid fastenough.report/1 document: report.schema: "
            "expected 'fastenough.report/1', got 'fastenough.ab/1'" in r.stderr), r.stderr
