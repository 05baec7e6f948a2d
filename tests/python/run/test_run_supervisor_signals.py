"""When fastenough itself is signalled (no terminal: a batch system, `kill`):
SIGQUIT is forwarded like SIGTERM, SIGTSTP stops the program and fastenough,
SIGCONT continues both, and if fastenough dies (SIGKILL) the program gets
SIGTERM instead of running on unreported; `report RUN --reanalyze` then makes
the report the run did not write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import run_cli
from foreground import default_signals

CHILD = textwrap.dedent("""
    import os, sys, time
    open(sys.argv[1], "w").write(str(os.getpid()))
    for _ in range(int(sys.argv[2]) * 10):
        time.sleep(0.1)
    print("FINISHED", flush=True)
""")


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _wait_for(what, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def started(tmp_path):
    procs: list[subprocess.Popen] = []
    children: list[int] = []

    def start(seconds: int):
        script = tmp_path / "child.py"
        script.write_text(CHILD)
        pidfile = tmp_path / "child.pid"
        proc = subprocess.Popen(
            [sys.executable, "-m", "fastenough", "run", "--no-trace", "--no-history",
             "--run-dir", str(tmp_path / "run"), "--", sys.executable, str(script),
             str(pidfile), str(seconds)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=default_signals)
        procs.append(proc)
        assert _wait_for(lambda: pidfile.exists() and pidfile.read_text()), "no child"
        children.append(int(pidfile.read_text()))
        return proc, children[-1]

    yield start
    for pid in children:  # whatever a failed test left running
        if _state(pid) not in (None, "Z"):
            os.kill(pid, signal.SIGKILL)
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.communicate()


def _alive(pid: int) -> bool:
    return _state(pid) not in (None, "Z")


def test_sigquit_is_forwarded_and_the_report_written(started, tmp_path):
    proc, child = started(60)
    proc.send_signal(signal.SIGQUIT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGQUIT, err
    assert not _alive(child)
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["run"]["signal"] == signal.SIGQUIT


def test_sigtstp_stops_the_program_too_and_sigcont_continues_it(started):
    proc, child = started(2)
    proc.send_signal(signal.SIGTSTP)
    assert _wait_for(lambda: _state(child) == "T" and _state(proc.pid) == "T"), \
        (_state(child), _state(proc.pid))  # only fastenough stopped before
    time.sleep(2.5)  # longer than the program's own time: it must not finish meanwhile
    assert _state(child) == "T"
    proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "FINISHED" in out


def test_the_program_ends_when_fastenough_is_killed(started, tmp_path):
    proc, child = started(120)
    proc.kill()  # SIGKILL: nothing of fastenough runs after this
    proc.communicate(timeout=60)
    assert _wait_for(lambda: not _alive(child), 20), "the program runs on, unsupervised"
    run = tmp_path / "run"
    assert not (run / "report.json").exists()
    # The recovery the report and --help name: analyse the directory again.
    r = run_cli("report", run, "--reanalyze", "--json", "-o", run / "report.json")
    assert r.returncode == 0, r.stderr
    report = json.loads((run / "report.json").read_text())
    assert report["schema"] == "fastenough.report/1"
