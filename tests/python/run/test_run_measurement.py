"""A report says what its measurement did not see, first, and never passes a
blind run for a clean one (issue 14, defect 4); steady figures are steady time
only (defect 6); the tool's own pauses are reported apart (defect 13)."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from conftest import run_cli

pytest.importorskip("torch")


def _run(tmp_path, body: str, *opts: str):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(body))
    r = run_cli("run", "--no-history", *opts, "--", sys.executable, str(script), cwd=tmp_path,
                env={"OMP_NUM_THREADS": "1"})
    runs = sorted((tmp_path / ".fastenough" / "runs").iterdir())
    report = json.loads((runs[-1] / "report.json").read_text())
    return r, report, runs[-1]


def test_a_program_without_torch_is_a_blind_measurement(tmp_path):
    r, report, run_dir = _run(tmp_path, "print('hello')\n")
    assert r.returncode == 0 and r.stdout == "hello\n"
    m = report["measurement"]
    assert m["status"] == "blind"
    assert [x["code"] for x in m["reasons"]] == ["no-torch"]
    # Said first in the terminal, and again on the last line.
    assert r.stderr.lstrip().startswith("Measurement incomplete")
    assert r.stderr.rstrip().splitlines()[-1].startswith("fastenough: measurement incomplete")
    assert "Nothing in this run is avoidable" not in r.stderr
    assert "not a clean bill of health" in r.stderr
    assert "Measurement incomplete" in (run_dir / "report.md").read_text().split("\n", 3)[2]
    # The child's status passes through; --require-complete makes it an error.
    r2, _, _ = _run(tmp_path, "print('hello')\n", "--require-complete")
    assert r2.returncode == 4 and r2.stdout == "hello\n"


def test_few_steady_steps_and_a_stopped_check_are_said(tmp_path):
    r, report, _ = _run(tmp_path, """
        import torch
        model = torch.nn.Linear(8, 2)
        with torch.no_grad():
            for _ in range(7):
                model(torch.randn(4, 8))
    """, "--no-trace")
    assert r.returncode == 0, r.stderr
    codes = [x["code"] for x in report["measurement"]["reasons"]]
    assert "few-steady-steps" in codes
    assert report["measurement"]["status"] == "partial"


def test_steady_throughput_leaves_the_profiler_window_out(tmp_path):
    """The profiler window (with stacks) makes its steps several times slower;
    steady steps/s must be the loop's own: 10 ms a step -> about 100 steps/s."""
    r, report, _ = _run(tmp_path, """
        import time, torch
        class Slow(torch.nn.Module):
            def forward(self, x):
                time.sleep(0.01)
                return x * 2
        model = Slow()
        for _ in range(60):
            model(torch.ones(4, 3))
    """, "--trace-steps", "10")
    assert r.returncode == 0, r.stderr
    steps = report["steps"]
    assert "profile" in [p["name"] for p in report["phases"]]
    assert 70 <= steps["steady_steps_per_s"] <= 101, steps
    assert steps["items_per_s"] == pytest.approx(4 * steps["steady_steps_per_s"])
    [rank] = report["run_details"]["steps_per_rank"]
    assert steps["steady_steps_per_s"] == pytest.approx(
        rank["steady_count"] / (rank["steady_ns"] * 1e-9))
    # First to last steady step spans the window and the pauses at its edges:
    # none of that is steady time.
    window = sum(p["host_ns"] for p in report["phases"] if p["name"] == "profile")
    assert rank["span_ns"] - rank["steady_ns"] >= 0.9 * window
    m = report["measurement"]
    assert m["status"] == "complete", m
    assert m["tool_pauses"] >= 3 and m["tool_pause_ns"] > 0 and m["profile_cost_ns"] > 0
    assert "fastenough's own cost" in r.stderr


def test_kineto_notices_stay_out_of_the_programs_stderr(tmp_path):
    r, report, _ = _run(tmp_path, """
        import sys, torch
        model = torch.nn.Linear(8, 2)
        for i in range(30):
            model(torch.randn(4, 8))
            if i == 12:
                print("mine", file=sys.stderr)
    """, "--quiet")
    assert r.returncode == 0
    assert report["run_details"]["traces"], "no profiler window ran"
    assert "USDT" not in r.stderr and "profiler_start" not in r.stderr
    assert "mine" in r.stderr
