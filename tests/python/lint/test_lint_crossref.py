"""`fastenough run` marks the runtime findings that lint also sees in the source."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The matching itself (code and line, the forward call's function, libraries
# left out, `python -m`) is tested in the core:
# cpp/fastenough/rundir/lint_cross_reference_test.cc. Here: real runs.


def test_demo_run_marks_what_lint_also_saw(tmp_path):
    # 64 items, not 16: sync-in-loop is watched on steady steps, and under load
    # (a full suite beside a benchmark) warm-up once took all of 16 items' steps.
    proc = subprocess.run([sys.executable, "-m", "fastenough", "demo", "--no-trace", "--items",
                           "64"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = (tmp_path / ".fastenough" / "runs").iterdir()
    report = json.loads((run_dir / "report.json").read_text())
    marked = {f["code"] for f in report["findings"] if f.get("also_in_source")}
    assert {"sync-in-loop", "autograd-in-eval", "full-vocab-logits"} <= marked
    assert all(f.get("source") != "lint" for f in report["findings"])
    lint = report["lint"]
    assert [Path(p).name for p in lint["files"]] == ["workload.py"]
    # Every lint finding of the demo is either confirmed or listed as unconfirmed.
    from fastenough.lint import lint_paths

    all_lint = lint_paths(lint["files"], jobs=1).findings
    assert lint["confirmed"] + len(lint["unconfirmed"]) == len(all_lint)
    # Off a terminal the report wraps at 80 columns, and where a line breaks
    # depends on the checkout's path length (CI's /check/work/main broke
    # "(fastenough lint:" from "sync-in-loop)"): compare with spaces collapsed.
    stderr = " ".join(proc.stderr.split())
    assert "also visible in source: " in stderr
    # Named by the code `fastenough lint` prints, not by its internal rule name.
    assert "(fastenough lint: sync-in-loop)" in stderr
    assert "sync-method-in-loop" not in stderr
    assert "seen in the source but not confirmed by this run" in stderr
    md = (run_dir / "report.md").read_text()
    assert "- **also visible in source**: `" in md
    assert "## Lint\n\n" in md


def test_a_training_forward_named_prediction_is_not_reported_under_run(tmp_path):
    """Issue 36, item 5: functorch's Lennard-Jones example under `fastenough run`:
    make_prediction is the forward whose loss the loop backpropagates, so lint's
    cross-reference lists no autograd-in-eval for it."""
    pytest.importorskip("torch")
    script = Path(__file__).resolve().parents[2] / "data" / "lint" / "behaviour" / \
        "force_field.py"
    proc = subprocess.run([sys.executable, "-m", "fastenough", "run", "--no-history",
                           "--no-trace", "--json", "-", "--", sys.executable, str(script)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env=dict(os.environ, EPOCHS="30",
                                   OMP_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [Path(p).name for p in report["lint"]["files"]] == ["force_field.py"]
    lint_codes = {f["code"] for f in report["lint"]["unconfirmed"]}
    assert "autograd-in-eval" not in lint_codes and "train-mode-in-eval" not in lint_codes
    assert all(f["code"] != "autograd-in-eval" for f in report["findings"])
