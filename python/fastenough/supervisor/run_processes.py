"""The processes of one run, and ending them when the run is stopped.

The program's processes are its process group (the signal `fastenough run`
forwards), every descendant of its first process (launchers put workers in
sessions of their own: spawn.descendants), and every process that carries
FASTENOUGH_RUN_DIR=<this run's directory> in its environment: a daemon
(double fork + setsid) leaves the group, the session and the tree, but keeps
the environment it was forked with, which /proc/<pid>/environ shows as it was
at its exec. That last one is the one definition of "a process of this run":
`fastenough run` uses it when it is stopped, and `fastenough mcp` when a call's
time limit or cancellation stops a run (end_programs).

/proc/<pid>/environ is readable for one's own processes only, so another
user's process is never taken for one of the run's, and a pid reused by an
unrelated process no longer carries the entry.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from fastenough.store.run_dir import read_run_file
from fastenough.supervisor.spawn import descendants

RUN_DIR_VAR = "FASTENOUGH_RUN_DIR"


def _entries(run_dir: str | os.PathLike) -> set[bytes]:
    """The environment entries that name this run directory: as given and resolved."""
    names = {os.fspath(run_dir)}
    with contextlib.suppress(OSError, RuntimeError):
        names.add(str(Path(run_dir).resolve()))
    return {os.fsencode(f"{RUN_DIR_VAR}={n}") for n in names}


def _environ(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:  # gone, or another user's
        return None


def carries_run_dir(pid: int, run_dir: str | os.PathLike) -> bool:
    """Whether process `pid` has FASTENOUGH_RUN_DIR=run_dir in its environment."""
    env = _environ(pid)
    return env is not None and not _entries(run_dir).isdisjoint(env)


def alive(pid: int) -> bool:
    """Whether `pid` is a process that still runs (a zombie does not: it only waits
    for its parent, init included, to collect its status)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # "pid (comm) state ...": comm may hold spaces and ')'
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def processes_of_run(run_dir: str | os.PathLike) -> list[int]:
    """Every process other than this one whose environment names `run_dir`, and every
    descendant of those (a child started with an environment of its own)."""
    wanted = _entries(run_dir)
    me = os.getpid()
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        env = _environ(int(entry))
        if env is not None and not wanted.isdisjoint(env):
            found.append(int(entry))
    out = dict.fromkeys(found)
    for pid in found:
        out.update(dict.fromkeys(descendants(pid)))
    out.pop(me, None)
    return list(out)


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def end_run_processes(run_dir: str | os.PathLike, signalled_group: int | None = None,
                      grace_s: float = 5.0,
                      log: Callable[[str], None] | None = None) -> list[int]:
    """End what is left of a stopped run: SIGTERM to each of its processes (the agent
    in them writes its last steps, as on a forwarded Ctrl-C) except those of
    `signalled_group`, which already had the stop forwarded to them and are only
    waited for; SIGKILL to any still running after grace_s. Returns the pids found."""
    pids = processes_of_run(run_dir)
    if not pids:
        return []
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if signalled_group is None or os.getpgid(pid) != signalled_group:
                os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    left = [p for p in pids if alive(p)] + [p for p in processes_of_run(run_dir)
                                           if p not in pids]
    _signal_all(left, signal.SIGKILL)
    if log is not None:
        log(f"the run was stopped: ended {len(pids)} process(es) left with its "
            f"{RUN_DIR_VAR} (pids {', '.join(map(str, pids))}); "
            f"{len(left)} needed SIGKILL")
    return pids


_CHILD = re.compile(r"child pid (\d+):")


def end_programs(run_dirs: list[Path]) -> list[int]:
    """Kill at once what is left of the programs of these run directories (their
    supervisor was stopped, or killed before it could stop them): the program's first
    process from supervisor.log (checked against its FASTENOUGH_RUN_DIR, since the pid
    may have been reused), its process group and every descendant, and every process
    that carries the run directory in its environment. Returns the pids killed."""
    killed: list[int] = []
    for rd in run_dirs:
        pids: dict[int, None] = {}
        try:
            log = read_run_file(Path(rd) / "supervisor.log", 64 << 20).decode("utf-8", "replace")
        except OSError:  # missing, or something else than a file (a FIFO): no child pid
            log = ""
        for m in _CHILD.finditer(log):
            pid = int(m.group(1))
            if not carries_run_dir(pid, rd):
                continue  # ended, or the pid was reused: not ours
            pids.update(dict.fromkeys(descendants(pid)))
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            pids[pid] = None
        pids.update(dict.fromkeys(processes_of_run(rd)))
        _signal_all(pids, signal.SIGKILL)
        killed.extend(pids)
    return killed
