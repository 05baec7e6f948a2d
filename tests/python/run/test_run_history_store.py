"""`fastenough run` with a history store (.fastenough/runs.db) it cannot add to
(issue 34, item 16): damaged, or something else than a file. The program's
exit status passes through, the run directory and its report are written, and
what run says is true: report.json was written, so it does not call the
printed report "the only copy"; it says the run is missing from `fastenough
history`, and what to do about a damaged store. Real CLI, hard timeouts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

PROGRAM = "import sys\nprint('program done')\nsys.exit(3)\n"


def _run(cli, cwd: Path, *options: str):
    (cwd / "p.py").write_text(PROGRAM)
    return cli("run", "--no-trace", *options, "--", sys.executable, "p.py", cwd=cwd, timeout=120)


def _run_dir(stderr: str) -> Path:
    line = [ln for ln in stderr.splitlines() if "; run directory " in ln][-1]
    return Path(line.rsplit("; run directory ", 1)[1])


@pytest.mark.parametrize("store", ["garbage", "fifo", "directory"])
@pytest.mark.parametrize("options", [(), ("--quiet",), ("--json", "out.json")],
                         ids=["terminal", "quiet", "json-file"])
def test_a_history_store_run_cannot_add_to_is_said_truly(tmp_path, cli, store, options):
    db = tmp_path / ".fastenough" / "runs.db"
    db.parent.mkdir()
    if store == "garbage":
        db.write_bytes(b"\x8f not sqlite " * 400)
    elif store == "fifo":
        os.mkfifo(db)
    else:
        db.mkdir()
    r = _run(cli, tmp_path, *options)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert r.returncode == 3, (r.returncode, r.stderr)  # the program's own status
    run_dir = _run_dir(r.stderr)
    assert (run_dir / "report.json").is_file()
    assert "only copy" not in r.stderr, r.stderr  # report.json was written
    assert "--reanalyze" not in r.stderr, r.stderr  # nothing to redo
    line = next(ln for ln in r.stderr.splitlines() if "not written" in ln)
    assert ".fastenough/runs.db" in line and "fastenough history" in line, line
    assert "report.json" in line, line  # where the run's report is
    if store == "garbage":
        assert "move it aside" in line, line
    if store == "fifo":
        assert "not a regular file (a FIFO or pipe)" in line, line


def test_the_next_run_after_moving_a_damaged_store_aside_is_in_history(tmp_path, cli):
    db = tmp_path / ".fastenough" / "runs.db"
    db.parent.mkdir()
    db.write_bytes(b"\x8f not sqlite " * 400)
    assert _run(cli, tmp_path, "--quiet").returncode == 3
    db.rename(db.with_name("runs.db.damaged"))
    r = _run(cli, tmp_path, "--quiet")
    assert r.returncode == 3 and "not written" not in r.stderr, r.stderr
    h = cli("history", cwd=tmp_path, timeout=60)
    assert h.returncode == 0 and "p.py" in h.stdout, (h.stdout, h.stderr)
