"""FIFOs where a verb expects a file (issue 34, item 8): `decide --plan FIFO`
and `lint` over a FIFO named *.py waited forever in open(). An input that is
itself a FIFO is refused at once (exit 2, "not a regular file"); a FIFO met
inside a directory is skipped and said to be skipped. Real FIFOs nobody writes
to; the real CLI in a subprocess with a hard timeout, so that a hang fails."""

from __future__ import annotations

import os

from decide_runs import decide_run_dir


def _no_traceback(r) -> None:
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr


def test_decide_refuses_a_fifo_as_its_plan(tmp_path, cli):
    run = decide_run_dir(tmp_path)
    plan = tmp_path / "plan.toml"
    os.mkfifo(plan)
    r = cli("decide", run, "--plan", plan, "--json", timeout=60)
    _no_traceback(r)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert f"{plan}: not a regular file (a FIFO or pipe)" in r.stderr, r.stderr


def test_decide_refuses_a_fifo_as_its_report(tmp_path, cli):
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "report.json")
    r = cli("decide", run, "--runs", "3", "--json", timeout=60)
    _no_traceback(r)
    assert r.returncode == 2, (r.returncode, r.stderr)


def test_lint_skips_a_fifo_named_py_in_a_directory(tmp_path, cli):
    d = tmp_path / "src"
    d.mkdir()
    (d / "a.py").write_text("x = 1\n")
    os.mkfifo(d / "x.py")
    r = cli("lint", d, timeout=60)
    _no_traceback(r)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    out = r.stdout + r.stderr
    assert "x.py" in out and "not a regular file (a FIFO or pipe)" in out, out
    assert "1 file skipped" in out, out


def test_lint_refuses_a_fifo_given_as_the_path(tmp_path, cli):
    fifo = tmp_path / "x.py"
    os.mkfifo(fifo)
    r = cli("lint", fifo, timeout=60)
    _no_traceback(r)
    assert r.returncode == 2, (r.returncode, r.stderr)
    # Not "no such file": it is there, and is something lint does not read.
    assert f"{fifo}: not a regular file (a FIFO or pipe)" in r.stderr, r.stderr
