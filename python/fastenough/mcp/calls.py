"""Running one verb for an agent: the contract.

A call runs the `fastenough` CLI in a subprocess (`python -m fastenough VERB
... --json`), and nothing else: in the directory the call names, with the
server's environment plus the variables the call gives, stdin closed, stdout
and stderr into files of the call's own directory, under a time limit. The
subprocess keeps a crash of the core, a hostile trace or a runaway program away
from the server, and gives every verb the CLI's own exit meanings.

Where a call writes is its tool's contract: the tools that run a command (`run`,
`ab`) keep their runs and files under `<cwd>/.fastenough/`, as `fastenough run`
does; `decide` adds freeze.json to the run directory it is given; every other
tool writes nothing in the user's tree, its call directory lives in the
server's scratch directory (scratch_root). Every argument that is data (a
path, a command) reaches the CLI after `--`, so it is never read as an option.

The verb's process dies with the server: it gets SIGTERM when the server ends,
however it ends (the parent-death signal), and `fastenough run` answers that as
it answers Ctrl-C: it stops the program and writes the report.

When the time limit runs out or the agent cancels the call, the verb is stopped
as a user's Ctrl-C stops it: `fastenough run` gets SIGTERM, forwards it to the
program's process group and still writes the report of what was measured;
after STOP_GRACE_S whatever is left is killed, the program's processes too
(found through the run directory's supervisor.log, and checked to be that run's
by their FASTENOUGH_RUN_DIR before they are killed).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from fastenough.mcp import limits
from fastenough.store.run_dir import open_run_file

# The programs of stopped runs are ended by the supervisor's one definition of a
# run's processes (its group, its tree, and every process carrying its
# FASTENOUGH_RUN_DIR, daemons included).
from fastenough.supervisor.run_processes import end_programs

# Typed errors: the CLI's exit meanings, as tool errors.
KINDS = {
    "bad-input": "usage error or unreadable input: a wrong argument, a path that does not "
                 "exist or cannot be read (the CLI's exit status 2)",
    "command-not-found": "the command was not found (exit status 127, as a shell says it)",
    "command-not-executable": "the command is not executable (exit status 126)",
    "command-failed": "the command ran and exited with a non-zero status or was killed by a "
                      "signal; what was measured is kept",
    "measurement-incomplete": "the command succeeded but the measurement was not complete "
                              "(exit status 4 of `run --require-complete`): do not read 'no "
                              "findings' as a clean bill",
    "time-limit": "the call's time limit ran out: the command was stopped and what was "
                  "measured until then is kept",
    "internal": "a bug in fastenough (exit status 3)",
}


class ToolFailure(Exception):
    """A call that failed the way the CLI fails. `answer` holds what the call could still
    say (the report of a run that failed, the runs of an A/B so far)."""

    def __init__(self, kind: str, message: str, exit_code: int | None = None,
                 answer: dict | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.exit_code = exit_code
        self.answer = answer

    def error(self) -> dict:
        return {"kind": self.kind, "exit_code": self.exit_code,
                "meaning": KINDS.get(self.kind, ""), "message": limits.clean(self.message, 1000)}


Progress = Callable[[float, float | None, str], Awaitable[None]]


def check_dir(cwd: object) -> Path:
    """The directory a call names: absolute, existing, a directory."""
    if not isinstance(cwd, str) or not cwd:
        raise ToolFailure("bad-input", "cwd: give the absolute path of the directory to work in",
                          2)
    p = Path(cwd)
    if not p.is_absolute():
        raise ToolFailure("bad-input", f"cwd {cwd!r}: not an absolute path", 2)
    if not p.is_dir():
        raise ToolFailure("bad-input", f"cwd {cwd!r}: no such directory", 2)
    if not os.access(p, os.R_OK | os.W_OK | os.X_OK):
        raise ToolFailure("bad-input", f"cwd {cwd!r}: not readable and writable", 2)
    return p


def check_timeout(timeout_s: float | None, verb: str) -> float:
    if timeout_s is None:
        return limits.DEFAULT_TIMEOUT_S[verb]
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or \
            not (0 < timeout_s <= limits.MAX_TIMEOUT_S):  # NaN fails the comparison too
        raise ToolFailure("bad-input", f"timeout_s must be in (0, {limits.MAX_TIMEOUT_S:.0f}]", 2)
    return float(timeout_s)


def scratch_root() -> Path:
    """Where the read-only tools keep their call directories: FASTENOUGH_MCP_SCRATCH, or
    $XDG_CACHE_HOME/fastenough/mcp (~/.cache/fastenough/mcp). Outside the user's tree, so
    that a tool annotated read-only writes nothing there. Private to this user: made with
    mode 0700, and refused when it is a symlink or another user's."""
    configured = os.environ.get("FASTENOUGH_MCP_SCRATCH")
    if configured:
        root = Path(configured)
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(cache) / "fastenough" / "mcp"
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(root)
    except OSError as e:
        raise ToolFailure("internal", f"cannot make the scratch directory {root}: "
                          f"{e.strerror or e} (set FASTENOUGH_MCP_SCRATCH)", 3) from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise ToolFailure("internal", f"the scratch directory {root} is not a directory of this "
                          "user's (set FASTENOUGH_MCP_SCRATCH)", 3)
    return root


def call_dir(cwd: Path | None, verb: str) -> Path:
    """<UTC time>-<verb>-<hex>/ for one call: the verb's stdout and stderr, and the full
    JSON documents that answers point at. Under <cwd>/.fastenough/mcp/ for the tools that
    write there by contract (run, ab, decide); under scratch_root() when cwd is None."""
    if cwd is None:
        root = scratch_root()
    else:
        root = cwd / ".fastenough" / "mcp"
        root.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    while True:
        d = root / f"{stamp}-{verb}-{secrets.token_hex(3)}"
        try:
            d.mkdir()
            return d
        except FileExistsError:
            continue


@dataclass
class Outcome:
    exit_status: int  # as a shell reports it: 128 + N when killed by signal N
    stdout: Path
    stderr: Path
    elapsed_s: float
    stopped: str | None  # "time-limit" when the call's limit stopped the verb


def read_json(path: Path, max_bytes: int = 1 << 30):
    """A JSON document from a file, or None (missing, unreadable, too large, not JSON, not
    a regular file: a FIFO that a program left at report.json never blocks the server)."""
    from fastenough.regular_file import open_regular

    try:
        with open_regular(path, max_bytes) as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None


def last_cli_message(stderr: Path) -> str:
    """The CLI's own last message ("fastenough: ...") in the verb's stderr."""
    text = limits.read_tail(stderr, chars=4000, lines=60)
    lines = [ln for ln in text.splitlines() if ln.startswith("fastenough")]
    return lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else ""


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _group_alive(pgid: int) -> bool:
    """Whether a process other than a zombie is left in process group pgid."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                # "pid (comm) state ppid pgrp ...": comm may hold spaces and ')'
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            return True
    return False


async def run_cli(args: list[str], *, cwd: Path, env: dict[str, str], timeout_s: float,
                  out_dir: Path, progress: Progress | None = None,
                  describe: Callable[[], str] | None = None, stop: str = "kill",
                  run_dirs: Callable[[], list[Path]] | None = None,
                  stdout_name: str = "stdout.txt") -> Outcome:
    """Run `python -m fastenough ARGS` to its end, to the time limit, or to cancellation.

    stop: how the verb is stopped early. "supervisor": SIGTERM to the CLI process alone
    (`fastenough run` forwards it to the program and writes the report); "group": SIGTERM
    to its process group (`fastenough ab` and the run it is in); "kill": SIGKILL at once
    (nothing to keep). run_dirs: the run directories whose programs must not outlive a
    stop. On cancellation the stop is shielded, and the cancellation goes on after it."""
    out_path, err_path = out_dir / stdout_name, out_dir / "stderr.txt"
    full_env = dict(os.environ)
    full_env.update(env)
    full_env.pop("FASTENOUGH_FORCE_PROGRESS", None)  # no progress bars into the files
    cmd = [sys.executable, "-m", "fastenough", *args]
    t0 = time.monotonic()
    from fastenough.die_with_parent import ParentLink

    # Dying with the server: the verb gets one SIGTERM when the server is gone.
    link = ParentLink()
    full_env.update(link.env)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            # A session of its own: stopped as a group.
            proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True,
                                    pass_fds=link.pass_fds)
        except OSError as e:
            link.close()
            if e.errno == errno.E2BIG:  # the arguments or environment are too large
                raise ToolFailure("bad-input", "the command's arguments and environment are "
                                  "too large for the system to start it (E2BIG)", 2) from None
            raise ToolFailure("internal", f"cannot start {cmd[0]}: {e.strerror or e}", 3) from None
        link.started()

    async def stop_now() -> None:
        if proc.poll() is None:
            if stop == "supervisor":
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGTERM)
            elif stop == "group":
                _kill_group(proc.pid, signal.SIGTERM)
            else:
                _kill_group(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + limits.STOP_GRACE_S
            while proc.poll() is None and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            # `ab` ends at once; the run it was in still writes its report.
            while stop == "group" and _group_alive(proc.pid) and time.monotonic() < deadline:
                await anyio.sleep(0.1)
        _kill_group(proc.pid, signal.SIGKILL)  # anything the verb left in its group
        if proc.poll() is None:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        if run_dirs is not None:
            end_programs(run_dirs())

    stopped = None
    next_progress = t0 + 0.5
    try:
        while proc.poll() is None:
            now = time.monotonic()
            if now - t0 > timeout_s:
                stopped = "time-limit"
                if progress is not None:
                    with contextlib.suppress(Exception):
                        await progress(now - t0, timeout_s,
                                       f"time limit of {timeout_s:.0f} s reached: stopping, "
                                       "keeping what was measured")
                await stop_now()
                break
            if progress is not None and now >= next_progress:
                next_progress = now + limits.PROGRESS_EVERY_S
                message = f"{now - t0:.0f} s"
                if describe is not None:
                    with contextlib.suppress(Exception):
                        message += "; " + describe()
                with contextlib.suppress(Exception):  # a lost notification is no failure
                    await progress(round(now - t0, 1), timeout_s, message)
            await anyio.sleep(0.2)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await stop_now()
        raise
    finally:
        link.close()
    rc = proc.returncode
    status = 128 - rc if rc < 0 else rc
    return Outcome(status, out_path, err_path, time.monotonic() - t0, stopped)


class LineCounter:
    """Counts the lines of a growing file (steps.jsonl) and keeps its last line,
    reading only what was appended since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.lines = 0
        self.last = b""

    def update(self) -> int:
        try:
            # A FIFO the program put there would block the whole server in open().
            with open_run_file(self.path) as f:
                f.seek(self.offset)
                data = f.read(16 << 20)
        except OSError:
            return self.lines
        end = data.rfind(b"\n")
        if end >= 0:
            chunk = data[: end + 1]
            self.lines += chunk.count(b"\n")
            self.offset += len(chunk)
            self.last = chunk.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        return self.lines
