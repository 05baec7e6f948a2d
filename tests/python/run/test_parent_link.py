"""fastenough's own children (the verbs `fastenough mcp` starts, the runs `ab` starts)
get exactly one SIGTERM when their starter ends, however it ends.

The kernel's parent-death signal, which they had before, is sent each time the child
is handed to a new parent: from the thread that started it to another thread of the
starter, then on. A `fastenough run` started by an MCP server killed with SIGKILL got
two: the second came while it wrote the report, and killed it without one
(test_mcp_hostile.py::test_the_program_of_a_run_dies_with_the_server[9], 1 run in 4
under load). These tests make the thread hand-over happen on purpose."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PY = sys.executable

CHILD = """\
import signal, sys, time
from fastenough.die_with_parent import watch_parent
log = sys.argv[1]
signal.signal(signal.SIGTERM, lambda *_: open(log, "a").write("TERM\\n"))
watch_parent()
open(log, "a").write("ready\\n")
end = time.monotonic() + 30
while time.monotonic() < end and open(log).read().count("TERM") == 0:
    time.sleep(0.02)
time.sleep(1.0)  # long enough for a repeated signal to arrive
"""

STARTER = """\
import subprocess, sys, threading, time
from fastenough.die_with_parent import ParentLink
child, log, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(threads):
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()

def start():
    link = ParentLink()
    subprocess.Popen([sys.executable, child, log], env=dict(__import__("os").environ, **link.env),
                     pass_fds=link.pass_fds)
    link.started()

# Started from a thread that ends at once: the child must not notice.
t = threading.Thread(target=start)
t.start()
t.join()
time.sleep(60)
"""


def _start(tmp_path: Path, threads: int) -> tuple[subprocess.Popen, Path]:
    (tmp_path / "child.py").write_text(CHILD)
    (tmp_path / "starter.py").write_text(STARTER)
    log = tmp_path / "child.log"
    starter = subprocess.Popen([PY, str(tmp_path / "starter.py"), str(tmp_path / "child.py"),
                                str(log), str(threads)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (log.is_file() and "ready" in log.read_text()):
        time.sleep(0.05)
    assert "ready" in log.read_text(), "the child never started"
    return starter, log


def _wait_for_the_child(log: Path) -> str:
    # The child writes TERM lines, then stays 1 s for any repeat, then ends.
    deadline = time.monotonic() + 60
    text = log.read_text()
    while time.monotonic() < deadline and "TERM" not in text:
        time.sleep(0.05)
        text = log.read_text()
    time.sleep(2.0)
    return log.read_text()


def test_the_end_of_the_thread_that_started_the_child_is_not_the_end_of_its_starter(tmp_path):
    starter, log = _start(tmp_path, threads=4)
    try:
        time.sleep(1.0)
        assert "TERM" not in log.read_text(), "the child was stopped while its starter lives"
    finally:
        starter.kill()
        starter.wait()
    assert _wait_for_the_child(log).count("TERM") == 1


@pytest.mark.parametrize("attempt", range(3))
def test_a_starter_killed_with_many_threads_sends_one_sigterm(tmp_path, attempt):
    starter, log = _start(tmp_path, threads=16)
    starter.send_signal(signal.SIGKILL)
    starter.wait()
    assert _wait_for_the_child(log).count("TERM") == 1


def test_the_link_is_not_passed_on_to_the_program(tmp_path):
    """`fastenough run` started with a link forgets its name: the user's program
    never sees FASTENOUGH_PARENT_FD (the agent changes nothing in its environment)."""
    from fastenough.die_with_parent import ENV, ParentLink

    link = ParentLink()
    env = dict(os.environ, **link.env)
    env.pop("FASTENOUGH_RUN_DIR", None)
    program = f"import os; print('seen:', os.environ.get({ENV!r}))"
    try:
        p = subprocess.run([PY, "-m", "fastenough", "run", "--quiet", "--no-trace",
                            "--no-history", "--", PY, "-c", program],
                           cwd=tmp_path, env=env, pass_fds=link.pass_fds,
                           capture_output=True, text=True, timeout=300)
    finally:
        link.close()
    assert p.returncode == 0, p.stderr
    assert "seen: None" in p.stdout
