"""`fastenough run` at a real terminal (a pseudo-terminal): the program keeps
its controlling terminal (/dev/tty opened with ENXIO under the tool: the child
was made a session leader), reads the keyboard, gets Ctrl-C from it, and Ctrl-Z
stops the whole job, the program included, until `fg` in a job-control shell."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest
from pty_session import PtySession

FE = [sys.executable, "-m", "fastenough", "run", "--no-trace", "--no-history", "--"]


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.fixture
def session():
    opened = []

    def start(argv, **kw):
        s = PtySession(argv, **kw)
        opened.append(s)
        return s

    yield start
    for s in opened:
        s.close()


def test_the_program_keeps_its_terminal(session, tmp_path):
    prog = tmp_path / "ask.py"
    prog.write_text(textwrap.dedent("""
        with open("/dev/tty", "w") as tty:
            tty.write("TTY OK\\n")
        print("GOT", input("name? "))
    """))
    s = session([*FE, sys.executable, str(prog)], cwd=str(tmp_path))
    s.expect("TTY OK")
    s.expect("name? ")
    s.send("hello\r")
    s.expect("GOT hello")
    assert s.wait() == 0, s.seen
    assert "No such device" not in s.seen


def test_ctrl_c_at_the_terminal_reaches_the_program(session, tmp_path):
    prog = tmp_path / "wait.py"
    # Short sleeps: a Ctrl-C that lands just before one long sleep starts waits
    # for its end (CPython checks for signals between calls), as it did here once
    # on a busy machine.
    prog.write_text("import time\ntry:\n    print('READY', flush=True)\n"
                    "    for _ in range(600):\n        time.sleep(0.1)\n"
                    "except KeyboardInterrupt:\n    print('INTERRUPTED', flush=True)\n"
                    "    raise SystemExit(7)\n")
    s = session([*FE, sys.executable, str(prog)], cwd=str(tmp_path))
    s.expect("READY")
    s.send("\x03")
    s.expect("INTERRUPTED")
    assert s.wait() == 7, s.seen
    s.expect("command exited with status 7")


def test_ctrl_z_stops_the_job_and_fg_continues_it(session, tmp_path):
    prog = tmp_path / "slow.py"
    prog.write_text(textwrap.dedent("""
        import os, time
        print("CHILD", os.getpid(), flush=True)
        for _ in range(30):
            time.sleep(0.1)
        print("FINISHED", flush=True)
    """))
    shell = session(["/bin/bash", "--norc", "--noprofile", "-i"], cwd=str(tmp_path),
                    env={"PS1": "PROMPT$ ", "TERM": "dumb"})
    shell.expect("PROMPT$ ")
    shell.send(" ".join(FE) + f" {sys.executable} {prog}\r")
    child = int(shell.expect_match(r"CHILD (\d+)\r?\n").group(1))
    shell.send("\x1a")  # Ctrl-Z
    shell.expect("Stopped")
    shell.expect("PROMPT$ ")
    time.sleep(0.5)
    assert _state(child) == "T"  # the program stopped too (it ran on before)
    assert "FINISHED" not in shell.seen
    shell.send("fg\r")
    shell.expect("FINISHED")
    shell.expect("command exited with status 0")
    shell.send("exit\r")


def test_a_background_run_that_reads_the_terminal_stops_until_fg(session, tmp_path):
    prog = tmp_path / "ask.py"
    prog.write_text("print('GOT', input())\n")
    shell = session(["/bin/bash", "--norc", "--noprofile", "-i"], cwd=str(tmp_path),
                    env={"PS1": "PROMPT$ ", "TERM": "dumb"})
    shell.expect("PROMPT$ ")
    shell.send(" ".join(FE) + f" {sys.executable} {prog} &\r")
    shell.expect("PROMPT$ ")
    shell.send("sleep 3; jobs\r")
    shell.expect("Stopped")  # reading the terminal from the background, as plain
    shell.send("fg\r")
    time.sleep(1)
    shell.send("hi\r")
    shell.expect("GOT hi")
    shell.expect("command exited with status 0")
    shell.send("exit\r")
