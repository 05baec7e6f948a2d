"""What a newcomer types gets a helpful answer (issue 36, item 4): a misspelt
command or option names the right one, a program that could not start is said
to have not started (its exit status passed through, no blind report), and
every verb's --help fits an 80-column terminal."""

from __future__ import annotations

import sys

import pytest
from conftest import run_cli

from fastenough.cli.main import SUBCOMMANDS


def test_a_misspelt_command_suggests_the_right_spelling():
    r = run_cli("analyse", "trace.json")
    assert r.returncode == 2
    assert "invalid choice: 'analyse'; did you mean 'analyze'?" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("zzzz")
    assert r.returncode == 2 and "did you mean" not in r.stderr


def test_a_misspelt_option_of_a_verb_suggests_its_option(tmp_path):
    r = run_cli("run", "--probes", "--", sys.executable, "-c", "pass", cwd=tmp_path)
    assert r.returncode == 2
    assert "unrecognized arguments: --probes; did you mean --probe?" in r.stderr
    # The verb's own usage, not the top level's.
    assert r.stderr.startswith("usage: fastenough run "), r.stderr
    assert not (tmp_path / ".fastenough").exists()  # nothing ran
    r = run_cli("lint", "--formt", "json", str(tmp_path))
    assert r.returncode == 2 and "did you mean --format?" in r.stderr


def test_a_script_that_does_not_exist_could_not_start(tmp_path):
    r = run_cli("run", "--", sys.executable, "does_not_exist.py", cwd=tmp_path)
    assert r.returncode == 2, r.stderr  # python's own status, passed through
    assert "can't open file" in r.stderr  # python's own message
    assert "the program could not start" in r.stderr
    assert f"`{sys.executable} does_not_exist.py` exited with status 2" in r.stderr
    # No blind report of a run that never ran.
    assert "Measurement incomplete" not in r.stderr and "Findings" not in r.stderr
    assert "measurement incomplete" not in r.stderr
    r = run_cli("run", "--", sys.executable, "-m", "no_such_module_xyz", cwd=tmp_path)
    assert r.returncode == 1 and "the program could not start" in r.stderr


def test_a_script_that_ran_and_failed_before_torch_did_start(tmp_path):
    """CPython deletes __main__.__file__ once a script has run: read at exit, it made
    every script that ended look like one that never started."""
    (tmp_path / "fails.py").write_text('print("running")\nraise ValueError("boom")\n')
    r = run_cli("run", "--", sys.executable, "fails.py", cwd=tmp_path)
    assert r.returncode == 1 and "running" in r.stdout and "ValueError: boom" in r.stderr
    assert "could not start" not in r.stderr, r.stderr
    assert "failed with status 1 before it imported torch" in r.stderr


def test_a_program_that_fails_before_torch_shows_no_report_of_zeros(tmp_path):
    r = run_cli("run", "--", sys.executable, "-c", "import sys; sys.exit(3)", cwd=tmp_path)
    assert r.returncode == 3
    assert "failed with status 3 before it imported torch" in r.stderr
    assert "could not start" not in r.stderr  # it did start
    assert "Findings" not in r.stderr
    # A program without torch that succeeds still gets its (blind) report.
    r = run_cli("run", "--", sys.executable, "-c", "pass", cwd=tmp_path)
    assert r.returncode == 0 and "Measurement incomplete" in r.stderr


def test_a_command_that_does_not_exist_is_127(tmp_path):
    r = run_cli("run", "--", "no_such_command_xyz", cwd=tmp_path)
    assert r.returncode == 127
    assert "no_such_command_xyz: command not found" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("name", [None, *SUBCOMMANDS])
def test_help_fits_80_columns(name):
    r = run_cli(*([name] if name else []), "--help", env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    wide = [line for line in r.stdout.splitlines() if len(line) > 80]
    assert wide == [], wide
