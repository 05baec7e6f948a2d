"""A run's time limit ends every process of the program, daemons included.

A program may daemonise a process (double fork + setsid): it leaves the
program's process group and session and is reparented away from the program,
so neither the signal to the group nor the walk down the process tree reaches
it. It still carries FASTENOUGH_RUN_DIR=<this run's directory> in its
environment, and that is how the supervisor finds it (/proc/<pid>/environ).
When a run is stopped (the MCP tool's time limit, or a SIGTERM to `fastenough
run` from a batch system or `timeout`), such a process is ended too. Real
processes; every wait has a hard timeout, and the daemon is killed at the end of
each test whatever happened."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fastenough.supervisor.run_processes import alive, processes_of_run

# The program: a daemon (double fork + setsid) that sleeps for ten minutes and
# writes its pid first, then a main loop that runs until it is stopped.
DAEMONISING = textwrap.dedent("""
    import os, sys, time
    pidfile = sys.argv[1]
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pidfile + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
            for fd in (0, 1, 2):
                os.close(fd)
            time.sleep(600)
            os._exit(0)
        os._exit(0)
    os.wait()
    while True:
        time.sleep(0.05)
""")


def _wait_for(predicate, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


@pytest.fixture
def daemon_pidfile(tmp_path):
    pidfile = tmp_path / "daemon.pid"
    yield pidfile
    if pidfile.exists():  # whatever happened: leave nothing running
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def _daemon(pidfile: Path) -> int:
    assert _wait_for(pidfile.exists, 60), "the program never daemonised"
    return int(pidfile.read_text())


def test_sigterm_to_run_ends_a_daemonised_grandchild(tmp_path, daemon_pidfile):
    # As `timeout 60 fastenough run ...` or a batch system's time limit stops a run.
    prog = tmp_path / "daemonise.py"
    prog.write_text(DAEMONISING)
    run_dir = tmp_path / "run"
    env = dict(os.environ)
    env.pop("FASTENOUGH_RUN_DIR", None)
    proc = subprocess.Popen([sys.executable, "-m", "fastenough", "run", "--no-trace",
                             "--no-history", "--quiet", "--run-dir", str(run_dir), "--",
                             sys.executable, str(prog), str(daemon_pidfile)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        pid = _daemon(daemon_pidfile)
        assert processes_of_run(run_dir) and pid in processes_of_run(run_dir)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err  # the program's SIGTERM, passed through
    assert (run_dir / "report.json").is_file()
    assert _wait_for(lambda: not alive(pid), 10), "the daemon outlived its stopped run"
    assert "ended 1 process" in (run_dir / "supervisor.log").read_text()


def test_a_run_that_ends_by_itself_leaves_its_daemon_alone(tmp_path, daemon_pidfile):
    # Not stopped: a program may start a server on purpose; only a stop ends it.
    prog = tmp_path / "daemonise.py"
    prog.write_text(DAEMONISING.replace("while True:\n    time.sleep(0.05)", "pass"))
    run_dir = tmp_path / "run"
    env = dict(os.environ)
    env.pop("FASTENOUGH_RUN_DIR", None)
    r = subprocess.run([sys.executable, "-m", "fastenough", "run", "--no-trace", "--no-history",
                        "--quiet", "--run-dir", str(run_dir), "--", sys.executable, str(prog),
                        str(daemon_pidfile)], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert alive(_daemon(daemon_pidfile))


def test_the_mcp_time_limit_ends_a_daemonised_grandchild(tmp_path, daemon_pidfile):
    pytest.importorskip("mcp.server.mcpserver", reason="fastenough mcp needs the `mcp` package")
    import anyio

    from fastenough.mcp.calls import ToolFailure
    from fastenough.mcp.tools import run as run_tool

    prog = tmp_path / "daemonise.py"
    prog.write_text(DAEMONISING)

    async def scenario():
        # The time limit is a tool failure; a hang fails the test after 180 s.
        with anyio.fail_after(180), contextlib.suppress(ToolFailure):
            await run_tool([sys.executable, str(prog), str(daemon_pidfile)], str(tmp_path),
                           timeout_s=8, trace=False)

    anyio.run(scenario)
    pid = _daemon(daemon_pidfile)
    assert _wait_for(lambda: not alive(pid), 10), "the daemon outlived the call's time limit"


def test_processes_of_run_match_the_whole_entry_only(tmp_path):
    # FASTENOUGH_RUN_DIR=/x/run1 is not a process of /x/run: the entry is compared whole.
    env = dict(os.environ, FASTENOUGH_RUN_DIR=str(tmp_path / "run1"))
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        assert _wait_for(lambda: p.pid in processes_of_run(tmp_path / "run1"), 10)
        assert p.pid not in processes_of_run(tmp_path / "run")
    finally:
        p.kill()
        p.wait(timeout=10)
