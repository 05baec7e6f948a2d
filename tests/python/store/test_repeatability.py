"""Repeatability (issue 37, item 10): with earlier runs of the same command in
the history, a run's report says which findings held in every run (with
their savings' spread) and which came and went, in JSON, in the terminal and
in Markdown."""

from __future__ import annotations

import io
import json
import sys
import textwrap

import pytest
from conftest import run_cli
from typed_reports import minimal_report, print_report, report_to_markdown, typed

from fastenough.render.repeatability import lines
from fastenough.store.history import HistoryDB
from fastenough.store.repeatability import earlier_runs

# Comparing the findings (keys, spreads, the runs whose report cannot be read)
# is the core's: cpp/fastenough/rundir/repeatability_test.cc. Here: the history
# read, the section rendered, and real runs.

# The section the core writes for this run against two earlier ones (the
# findings of repeatability_test.cc's first test).
SECTION = {
    "runs": 3,
    "earlier": [{"id": 2, "run_dir": "/r/2", "started_at": "t2"},
                {"id": 1, "run_dir": "/r/1", "started_at": "t1"}],
    "stable": [
        {"code": "sync-in-loop", "verdict": "avoidable",
         "per_step_ns": {"min": 1_000_000, "max": 1_500_000, "runs": 3},
         "share_of_step": {"min": 0.04, "max": 0.06, "runs": 3}},
        {"code": "dataloader-bound", "rank": 1, "verdict": "avoidable"},
        {"code": "step-bound", "rank": 0, "verdict": "avoidable",
         "per_step_ns": {"min": 0, "max": 0, "runs": 3},
         "share_of_step": {"min": 0, "max": 0, "runs": 3}}],
    "varied": [
        {"code": "serial-small-gemm", "verdict": "avoidable", "runs": 1, "in_this_run": True},
        {"code": "autograd-in-eval", "verdict": "avoidable", "runs": 1, "in_this_run": False}],
}


def test_stable_findings_with_spread_and_those_that_came_and_went_are_rendered():
    text = lines(typed(minimal_report(repeatability=SECTION)))
    assert text[0].startswith("This run and 2 earlier runs of the same command in the "
                              "history: 3 findings in all 3, 2 came and went")
    assert "stable: sync-in-loop in all 3 runs; saving 1.00 ms to 1.50 ms/step, " \
           "4.0% to 6.0% of a step" in text
    assert "stable: dataloader-bound (rank 1) in all 3 runs; saving not estimated" in text
    assert "stable: step-bound (rank 0) in all 3 runs; saving none of its own" in text
    assert "came and went: serial-small-gemm in 1 of 3 runs (this run among them)" in text
    assert "came and went: autograd-in-eval in 1 of 3 runs (not in this run)" in text


def test_no_history_no_earlier_runs(tmp_path):
    assert earlier_runs(tmp_path, "python x.py", tmp_path / "run", 0) == []  # no runs.db
    assert lines(typed(minimal_report())) == []


def test_earlier_runs_are_the_same_command_ended_the_same_way(tmp_path):
    db = HistoryDB(tmp_path / ".fastenough" / "runs.db")
    dirs = []
    for i, (command, status) in enumerate([("python a.py", 0), ("python b.py", 0),
                                           ("python a.py", 1), ("python a.py", 0),
                                           ("python a.py", 0)]):
        d = tmp_path / f"run{i}"
        d.mkdir()
        dirs.append(d)
        db.add_run({"command": command, "exit_status": status, "run_dir": str(d),
                    "started_at": f"t{i}"})
    db.close()
    # Run 4 is this run: of the others runs 3 and 0 are the same command, exited
    # 0, newest first (the core skips those whose report.json is gone).
    found = earlier_runs(tmp_path, "python a.py", dirs[4], 0)
    assert [(e[1], e[2]) for e in found] == [(str(dirs[3]), "t3"), (str(dirs[0]), "t0")]
    assert all(isinstance(e[0], int) for e in found)
    # Run 3 analysed again (the history lists it): only the runs before it.
    assert [e[1] for e in earlier_runs(tmp_path, "python a.py", dirs[3], 0)] == [str(dirs[0])]


PROGRAM = """
    import os, torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    # PLANT=1: the evaluation forgets no_grad (autograd-in-eval), in that run only.
    grad = torch.enable_grad() if os.environ.get("PLANT") == "1" else torch.no_grad()
    total = 0.0
    with grad:
        for i in range(300):
            total += float(model(torch.randn(32, 64)).sum())
    print("done")
"""


@pytest.mark.skipif(__import__("importlib").util.find_spec("torch") is None,
                    reason="torch not installed")
def test_two_real_runs_one_finding_planted_in_one(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM))
    env = {"OMP_NUM_THREADS": "1"}
    reports = []
    for plant in ("0", "1"):
        out = tmp_path / f"report{plant}.json"
        r = run_cli("run", "--no-trace", "--json", str(out), "--", sys.executable,
                    str(script), cwd=tmp_path, env=dict(env, PLANT=plant))
        assert r.returncode == 0, r.stderr[-3000:]
        reports.append(json.loads(out.read_text()))
    first, second = reports
    assert "repeatability" not in first  # no earlier run yet
    assert "autograd-in-eval" not in {f["code"] for f in first["findings"]}
    codes = {f["code"] for f in second["findings"]}
    assert "autograd-in-eval" in codes, codes
    rep = second["repeatability"]
    assert rep["runs"] == 2 and len(rep["earlier"]) == 1
    varied = {e["code"]: e for e in rep["varied"]}
    assert varied["autograd-in-eval"]["runs"] == 1
    assert varied["autograd-in-eval"]["in_this_run"] is True
    both = {f["code"] for f in first["findings"]} & codes
    assert {e["code"] for e in rep["stable"]} == both
    # The run directory's report.json and report.md have it; `fastenough report`
    # prints it in the terminal and in Markdown.
    [run_dir] = [e for e in (tmp_path / ".fastenough" / "runs").iterdir()
                 if e.name != rep["earlier"][0]["run_dir"].rsplit("/", 1)[-1]]
    assert json.loads((run_dir / "report.json").read_text())["repeatability"] == rep
    # Analysed again, the run is compared with the same earlier run (not with
    # itself), and the first run, analysed again, with none.
    again = run_cli("report", "--reanalyze", "--json", "--no-progress", str(run_dir),
                    cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["repeatability"] == rep
    first_dir = (run_dir.parent / rep["earlier"][0]["run_dir"].rsplit("/", 1)[-1])
    again = run_cli("report", "--reanalyze", "--json", "--no-progress", str(first_dir),
                    cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "repeatability" not in json.loads(again.stdout)
    line = "came and went: autograd-in-eval in 1 of 2 runs (this run among them)"
    assert line in (run_dir / "report.md").read_text()
    term = run_cli("report", "--terminal", str(run_dir), cwd=tmp_path, env={"COLUMNS": "200"})
    assert term.returncode == 0, term.stderr
    assert "Repeatability: This run and 1 earlier run of the same command" in term.stdout
    assert line in term.stdout
    md = run_cli("report", "--md", str(run_dir), cwd=tmp_path)
    assert "## Repeatability" in md.stdout and line in md.stdout
    assert line in (run_dir / "report.html").read_text()
    jsonschema = pytest.importorskip("jsonschema")
    from fastenough.schema import report_schema

    errors = [e.message for e in jsonschema.Draft202012Validator(report_schema())
              .iter_errors(second)]
    assert errors == []


def test_markdown_and_terminal_of_a_stored_section():
    from rich.console import Console

    report = minimal_report(repeatability={
        "runs": 2, "earlier": [{"id": 1, "run_dir": "/r/1", "started_at": None}],
        "stable": [], "varied": [{"code": "serial-small-gemm", "verdict": "avoidable",
                                  "runs": 1, "in_this_run": False}]})
    md = report_to_markdown(report)
    assert "## Repeatability" in md
    assert "came and went: serial-small-gemm in 1 of 2 runs (not in this run)" in md
    buf = io.StringIO()
    print_report(report, Console(file=buf, width=200))
    assert "Repeatability: This run and 1 earlier run of the same command in the history: " \
           "0 findings in all 2, 1 came and went" in buf.getvalue()
