"""Files of a run directory that are not plain files: the program owns its run
directory while it runs, and may leave a FIFO, a device or a huge sparse file
where the agent's files go. `fastenough run` (and every later reader of the run
directory) must neither wait forever on them nor read without end: each is
skipped and said to be skipped, the report is still written, and the program's
exit status passes through. The real CLI on real FIFOs; every subprocess has a
hard timeout, so that a hang fails the test instead of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

# Replaces the run directory's NAME with a FIFO nobody ever writes to, then exits
# with status 7: the supervisor reads NAME after the program ended.
FIFO_PROG = textwrap.dedent("""
    import os, sys
    run = os.environ["FASTENOUGH_RUN_DIR"]
    for name in sys.argv[1:]:
        p = os.path.join(run, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        os.mkfifo(p)
    sys.exit(7)
""")

RUN_DIR_FILES = ["steps.jsonl", "phases.jsonl", "samples.csv", "meta.json", "checks.json",
                 "sweep_batch.json", "agent/123.json", "trace/rank0.pt.trace.json",
                 "rank-summaries/manifest.json", "protocol.json", "report.json"]


def _no_traceback(r) -> None:
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr


@pytest.mark.parametrize("names", [["steps.jsonl"], RUN_DIR_FILES],
                         ids=["steps.jsonl", "every-file"])
def test_a_fifo_left_in_the_run_directory_does_not_hang_run(tmp_path, cli, names):
    prog = tmp_path / "fifo.py"
    prog.write_text(FIFO_PROG)
    (tmp_path / "wd").mkdir()
    run_dir = tmp_path / "run"
    args = ["run", "--no-trace", "--run-dir", run_dir, "--", sys.executable, prog, *names]
    r = cli(*args, cwd=tmp_path / "wd", timeout=120)
    _no_traceback(r)
    assert r.returncode == 7, (r.returncode, r.stderr)
    report = json.loads((run_dir / "report.json").read_text())
    assert report["run"]["exit_status"] == 7
    problems = "\n".join(report["run_details"]["problems"])
    note = "steps.jsonl: not a regular file (a FIFO or pipe); skipped"
    assert note in problems, problems
    assert note in r.stderr, r.stderr  # said where the user looks, too
    assert (run_dir / "report.md").is_file() and (run_dir / "report.html").is_file()
    if len(names) > 1:
        for name in ("phases.jsonl", "samples.csv", "checks.json", "agent/123.json"):
            assert f"{name}: not a regular file (a FIFO or pipe); skipped" in problems


def test_a_fifo_in_the_run_directory_does_not_hang_the_later_readers(tmp_path, cli):
    # diff and report --reanalyze read the same files of a run directory later.
    prog = tmp_path / "fifo.py"
    prog.write_text(FIFO_PROG)
    run_dir = tmp_path / "run"
    r = cli("run", "--no-trace", "--no-history", "--quiet", "--run-dir", run_dir, "--",
            sys.executable, prog, "steps.jsonl", "samples.csv", "protocol.json",
            cwd=tmp_path, timeout=120)
    assert r.returncode == 7, r.stderr
    r = cli("report", run_dir, "--reanalyze", "--json", cwd=tmp_path, timeout=120)
    _no_traceback(r)
    assert r.returncode in (0, 1, 4, 5), (r.returncode, r.stderr)
    r = cli("report", run_dir, "--html", "-o", tmp_path / "page.html", cwd=tmp_path,
            timeout=120)
    _no_traceback(r)
    r = cli("diff", run_dir, run_dir, cwd=tmp_path, timeout=120)
    _no_traceback(r)
    assert r.returncode != 3, r.stderr
    # report.json itself a FIFO: refused at once, exit 2, as any input that is no file.
    (run_dir / "report.json").unlink()
    os.mkfifo(run_dir / "report.json")
    r = cli("report", run_dir, "--json", cwd=tmp_path, timeout=120)
    _no_traceback(r)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "not a regular file" in r.stderr, r.stderr


def test_a_run_directory_file_too_large_is_skipped_not_read(tmp_path, cli):
    # A sparse 3 GiB steps.jsonl: skipped by its size, never read into memory.
    prog = tmp_path / "big.py"
    prog.write_text(textwrap.dedent("""
        import os
        with open(os.path.join(os.environ["FASTENOUGH_RUN_DIR"], "steps.jsonl"), "wb") as f:
            f.truncate(3 << 30)
    """))
    run_dir = tmp_path / "run"
    r = cli("run", "--no-trace", "--no-history", "--quiet", "--run-dir", run_dir, "--",
            sys.executable, prog, cwd=tmp_path, timeout=120)
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    report = json.loads((run_dir / "report.json").read_text())
    problems = "\n".join(report["run_details"]["problems"])
    assert "steps.jsonl: too large: 3221225472 bytes" in problems, problems
    assert "steps.jsonl: too large" in r.stderr, r.stderr


def test_every_python_reader_of_a_run_directory_skips_fifos(tmp_path):
    # The readers one by one, on a run directory whose every file is a FIFO: each
    # gives its "nothing there" answer at once (they waited in open() before).
    run_dir = tmp_path / "run"
    for name in ("steps.jsonl", "phases.jsonl", "samples.csv", "protocol.json",
                 "supervisor.log", "agent/1.json", "rank-summaries/manifest.json",
                 "report.json"):
        (run_dir / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(run_dir / name)
    script = textwrap.dedent(f"""
        from pathlib import Path
        rd = Path({str(run_dir)!r})
        from fastenough.render.run_files import read_samples, steady_step_durations
        assert read_samples(rd).empty() and steady_step_durations(rd) == ([], None)
        from fastenough.diff.steps import read_steps
        assert read_steps(rd) == []
        from fastenough.ab.protocol import _step_rows, user_fields
        assert _step_rows(rd) == [] and user_fields(rd) == {{}}
        from fastenough.supervisor.in_job import _manifest
        assert _manifest(rd / "rank-summaries") == {{}}
        from fastenough.store.run_dir import read_agents
        skipped = []
        assert read_agents(rd, skipped) == []
        assert skipped == ["agent/1.json: not a regular file (a FIFO or pipe); skipped"], skipped
        from fastenough.supervisor.run_processes import end_programs
        assert end_programs([rd]) == []
        from fastenough.mcp.calls import LineCounter
        assert LineCounter(rd / "steps.jsonl").update() == 0
        from fastenough.cli.report import _load_run_dir
        from fastenough.errors import InputNotFoundError
        try:
            _load_run_dir(str(rd), reanalyze=False)
            raise SystemExit("report.json, a FIFO, was read")
        except InputNotFoundError as e:
            assert "not a regular file (a FIFO or pipe)" in str(e), e
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
