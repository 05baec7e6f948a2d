"""Spawning the user's command with the agent injected, and forwarding signals.

The child runs in a process group of its own, in fastenough's session: it keeps
the controlling terminal (/dev/tty, the keyboard), which job_control.py hands to
it while fastenough is the foreground job, so that Ctrl-C, Ctrl-\\ and Ctrl-Z
reach it as in a plain run. A signal sent to fastenough itself (kill, a batch
system) is forwarded to the child's whole group (torchrun ranks, DataLoader
workers): SIGINT, SIGTERM, SIGHUP and SIGQUIT, a second one of them kills the
group with SIGKILL; SIGTSTP and SIGCONT stop and continue it (and fastenough
with it). Either way control comes back here and the report is still written.

If fastenough itself dies (SIGKILL, a crash), the kernel sends the child SIGTERM
(a parent-death signal, set between fork and exec): the program ends as it does
on `kill`, and never runs on unsupervised and unreported. The run directory then
has no report; `fastenough report RUN --reanalyze` makes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastenough.die_with_parent import die_with_parent
from fastenough.errors import FastenoughError
from fastenough.supervisor import job_control

EXIT_NOT_EXECUTABLE = 126  # like a shell
EXIT_NOT_FOUND = 127


class CommandNotFoundError(FastenoughError):
    exit_code = EXIT_NOT_FOUND


class CommandNotExecutableError(FastenoughError):
    exit_code = EXIT_NOT_EXECUTABLE


def boot_dir() -> Path:
    """The agent's sitecustomize directory inside the installed package."""
    import fastenough

    return Path(fastenough.__file__).resolve().parent / "agent" / "boot"


def check_command(cmd: list[str], env: dict[str, str]) -> str:
    """The program path that will run, or a shell-like error (127 / 126)."""
    prog = cmd[0]
    if "/" in prog:
        if not os.path.exists(prog):
            raise CommandNotFoundError(f"{prog}: no such file or directory")
        if os.path.isdir(prog):
            raise CommandNotExecutableError(f"{prog}: is a directory")
        if not os.access(prog, os.X_OK):
            raise CommandNotExecutableError(f"{prog}: permission denied (not executable)")
        return prog
    found = shutil.which(prog, path=env.get("PATH", os.defpath))
    if found is None:
        raise CommandNotFoundError(f"{prog}: command not found")
    return found


def child_env(
    base: dict[str, str], run_dir: Path, agent_opts: dict, boot: Path | None
) -> dict[str, str]:
    env = dict(base)
    env["FASTENOUGH_RUN_DIR"] = str(run_dir)
    env["FASTENOUGH_AGENT_OPTS"] = json.dumps(agent_opts, sort_keys=True)
    if boot is not None:
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(boot) + (os.pathsep + old if old else "")
    return env


def descendants(root: int) -> list[int]:
    """Every process below root, from the ppid links in /proc/<pid>/stat.

    Needed because launchers such as torchrun start their workers in sessions of
    their own, out of reach of a signal to the child's process group."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                # "pid (comm) state ppid ...": comm may hold spaces and ')'
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


@dataclass
class ChildResult:
    exit_status: int  # as a shell reports it: 128 + signal when killed
    signal: int | None  # the signal that ended the child, if any
    interrupted: bool  # fastenough got SIGINT/SIGTERM/SIGHUP/SIGQUIT and forwarded it


def _child_setup(parent: int, terminal_fd: int | None):
    """The function run in the child between fork and exec: the parent-death
    signal, then the terminal (prepared before the fork, as die_with_parent)."""
    death = die_with_parent(parent)

    def setup() -> None:
        death()
        if terminal_fd is not None:
            job_control.give_terminal_in_child(terminal_fd)

    return setup


def _start(cmd: list[str], env: dict[str, str], cwd: str,
           terminal: job_control.ForegroundTerminal | None,
           stdout_to_stderr: bool) -> subprocess.Popen:
    try:
        # process_group=0: a group of its own (setpgid), not a session: the
        # terminal stays the child's controlling terminal.
        return subprocess.Popen(cmd, env=env, cwd=cwd, process_group=0,
                                preexec_fn=_child_setup(os.getpid(),
                                                        terminal.fd if terminal else None),
                                stdout=sys.stderr.fileno() if stdout_to_stderr else None)
    except FileNotFoundError as e:
        raise CommandNotFoundError(f"{cmd[0]}: {e.strerror or 'not found'}") from None
    except PermissionError as e:
        raise CommandNotExecutableError(f"{cmd[0]}: {e.strerror or 'permission denied'}") from None
    except OSError as e:  # e.g. ENOEXEC: a script without a #! line
        raise CommandNotExecutableError(f"{cmd[0]}: {e.strerror or e}") from None


def run_child(
    cmd: list[str],
    env: dict[str, str],
    cwd: str,
    on_start: Callable[[int], None] | None = None,
    log: Callable[[str], None] | None = None,
    stdout_to_stderr: bool = False,
) -> ChildResult:
    """Run cmd to completion, forwarding signals to its process group (above).

    stdout_to_stderr: the child's stdout goes to our stderr (`run --json -`,
    where our stdout must carry nothing but the report)."""
    log = log or (lambda _m: None)
    terminal = job_control.ForegroundTerminal.of_this_process()
    try:
        proc = _start(cmd, env, cwd, terminal, stdout_to_stderr)
    except BaseException:
        if terminal is not None:
            terminal.close()
        raise
    if terminal is not None:
        terminal.give_to(proc.pid)  # the parent's side of the handover
    log(f"child pid {proc.pid}: {cmd!r}; terminal handed over: {terminal is not None}")
    if on_start is not None:
        on_start(proc.pid)

    received: list[int] = []
    stop_requested = [False]
    # A handler may run while the main thread is inside log(): it must not write
    # to the same file (a reentrant call); its lines are logged after the wait.
    handled: list[str] = []

    def forward_stop(signum: int, _frame: object) -> None:
        # SIGTSTP: the command stops, and wait_for_child stops fastenough after it;
        # SIGCONT: the command continues (fastenough itself already has).
        if signum == signal.SIGTSTP:
            stop_requested[0] = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)
        handled.append(f"received signal {signum}; sent it to process group {proc.pid}")

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        # A repeated interrupt means "stop now": the whole group is killed, and
        # every descendant too (collected first: killing a parent reparents its
        # children), since launchers put workers in sessions of their own.
        sig = signal.SIGKILL if received.count(signum) > 1 else signum
        tree = descendants(proc.pid) if sig == signal.SIGKILL else []
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        for pid in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        handled.append(f"received signal {signum}; sent {int(sig)} to process group {proc.pid}")

    handlers = {signal.SIGINT: forward, signal.SIGTERM: forward, signal.SIGHUP: forward,
                signal.SIGQUIT: forward, signal.SIGTSTP: forward_stop,
                signal.SIGCONT: forward_stop}
    previous = {}
    for s, handler in handlers.items():
        # Outside the main thread (embedding, tests) there is no forwarding.
        with contextlib.suppress(ValueError):
            previous[s] = signal.signal(s, handler)
    try:
        rc = job_control.wait_for_child(proc, terminal, stop_requested, log)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        if terminal is not None:
            terminal.close()
        for line in handled:
            log(line)
    log(f"child exited with returncode {rc}")
    if rc < 0:
        return ChildResult(128 - rc, -rc, bool(received))
    return ChildResult(rc, None, bool(received))
