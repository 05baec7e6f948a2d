"""A crash of the core's analysis at the end of `fastenough run` costs the
report, never the program's exit status (supervisor/contained.py). The crash is
real: the analysis's process is sent SIGSEGV, as a segfault in the core ends it."""

from __future__ import annotations

import faulthandler
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from fastenough.supervisor.contained import AnalysisCrashed, call_contained


def test_the_child_s_text_comes_back_whole():
    text = "".join(chr(32 + i % 90) for i in range(3_000_000))  # larger than a pipe's buffer
    assert call_contained(lambda: text) == text


def test_the_child_s_exception_is_raised_again_with_its_type():
    def fails() -> str:
        raise ValueError("trace: not a trace")

    with pytest.raises(ValueError, match="trace: not a trace"):
        call_contained(fails)


def test_a_crash_in_the_child_is_named_not_fatal():
    def crashes() -> str:
        faulthandler.disable()  # pytest's would print the child's stack
        os.kill(os.getpid(), signal.SIGSEGV)
        return "never"

    with pytest.raises(AnalysisCrashed, match=r"SIGSEGV, signal 11"):
        call_contained(crashes)
    assert os.getpid()  # this process lives on


# `fastenough run` whose analysis segfaults: the supervisor is this script, with
# the analysis replaced by one that kills its own process as a core crash would.
SUPERVISOR = textwrap.dedent("""
    import os, signal, sys
    import fastenough.supervisor.session as session

    def crash(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGSEGV)

    session.analyze_run_dir_text = crash
    from fastenough.cli.main import main
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.parametrize("status", [0, 3])
def test_run_keeps_the_program_s_exit_status_when_the_analysis_crashes(tmp_path, status):
    sup = tmp_path / "supervisor.py"
    sup.write_text(SUPERVISOR)
    run_dir = tmp_path / "run"
    prog = f"print('program done'); raise SystemExit({status})"
    r = subprocess.run([sys.executable, str(sup), "run", "--no-trace", "--no-history",
                        "--run-dir", str(run_dir), "--", sys.executable, "-c", prog],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == status, r.stderr  # the program's, not -11
    assert r.stdout.strip() == "program done"
    assert "the analysis crashed (SIGSEGV, signal 11)" in r.stderr, r.stderr
    assert f"fastenough report {run_dir} --reanalyze" in " ".join(r.stderr.split()), r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert (run_dir / "meta.json").exists()  # the run's data is kept
    assert not (run_dir / "report.json").exists()
    log = (run_dir / "supervisor.log").read_text()
    assert "analysis crashed" in log
