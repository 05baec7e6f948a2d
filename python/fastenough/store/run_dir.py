"""Run directory creation and the supervisor's own files (meta.json, supervisor.log)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import secrets
import socket
import subprocess
import time
from pathlib import Path
from typing import BinaryIO

from fastenough.regular_file import open_regular, read_regular, why


def new_run_dir(cwd: str, explicit: str | None = None) -> Path:
    """Create `<cwd>/.fastenough/runs/<UTC %Y%m%dT%H%M%SZ>-<6 hex>/` (or `explicit`)."""
    if explicit:
        path = Path(explicit).resolve()
        if path.exists() and any(path.iterdir()):
            from fastenough.errors import UsageError

            raise UsageError(f"--run-dir {explicit}: exists and is not empty")
        path.mkdir(parents=True, exist_ok=True)
        return path
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    root = Path(cwd).resolve() / ".fastenough" / "runs"
    root.mkdir(parents=True, exist_ok=True)
    while True:
        path = root / f"{stamp}-{secrets.token_hex(3)}"
        try:
            path.mkdir()
            return path
        except FileExistsError:  # same second, same 6 hex digits: draw again
            continue


def utf8_safe(obj: object) -> object:
    """`obj` with every string made valid UTF-8: a path or argument whose bytes are
    not UTF-8 holds os.fsdecode's surrogates, which JSON readers (simdjson) and
    SQLite refuse; each undecodable byte becomes U+FFFD, as the core's JSON
    writer does."""
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
            return obj
        except UnicodeEncodeError:
            return obj.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if isinstance(obj, dict):
        return {utf8_safe(k): utf8_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [utf8_safe(v) for v in obj]
    return obj


def write_json_atomic(path: Path, obj: object) -> None:
    """temp + rename, so that a reader never sees half a file."""
    write_text_atomic(path, json.dumps(utf8_safe(obj), indent=1, sort_keys=False) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """temp + rename; the temporary is removed when the write fails (a full disk),
    so that the old file, if any, stays and nothing half-written is left."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# Temporaries the agent's writers make beside a file before renaming it into
# place; a process that died mid-write (os._exit, a signal, a full disk) leaves
# them. Their shapes: agent/run_dir_writer.py and output_recorder.py "NAME.tmp<pid>",
# profile_window.py "NAME.gz.tmp", checks/_util.py ".tmp-XXXXXXXX".
_TMP_PID = re.compile(r"\.tmp(\d+)$")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_temporaries(run_dir: Path) -> list[str]:
    """Remove what the agent's writers left half-written once the program has
    exited (a .gz.tmp in trace/ would otherwise be read as one more, damaged,
    trace). Returns the paths removed, relative to run_dir."""
    removed = []
    for root, _dirs, names in os.walk(run_dir):
        for name in names:
            m = _TMP_PID.search(name)
            stale = (name.endswith(".gz.tmp") or name.startswith(".tmp-")
                     or (m is not None and not _pid_alive(int(m.group(1)))))
            if not stale:
                continue
            path = os.path.join(root, name)
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed.append(os.path.relpath(path, run_dir))
    return removed


def git_info(cwd: str) -> dict | None:
    """{"revision", "dirty"} when cwd is inside a git work tree, else None."""

    def git(*args: str) -> str | None:
        try:
            r = subprocess.run(
                ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    rev = git("rev-parse", "HEAD")
    if rev is None:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"revision": rev, "dirty": bool(status) if status is not None else None}


def host_name() -> str:
    return socket.gethostname()


# The most bytes one file of a run directory is read to, as the core's readers
# (rundir/run_files.h kMaxRunFileBytes): steps.jsonl of a million steps is about
# 300 MB; a larger file (sparse, a runaway writer) is skipped, not read.
MAX_RUN_FILE_BYTES = 2 << 30
# An agent record is a few kB; a file of the agent's directory larger than this
# is no record of it.
MAX_AGENT_FILE_BYTES = 64 << 20


def open_run_file(path: str | os.PathLike, max_bytes: int = MAX_RUN_FILE_BYTES) -> BinaryIO:
    """A file of a run directory opened for reading (binary), by the rule every reader
    of a run directory follows: the program owns the directory while it runs and may
    leave a FIFO, a device or a huge sparse file where a file is expected, so nothing
    here waits or reads without end (fastenough/regular_file.py). Raises an OSError
    whose strerror says why ("not a regular file (a FIFO or pipe)"): readers that
    skip an unreadable file skip these too, and say so where they can (run_file_note)."""
    return open_regular(path, max_bytes)


def read_run_file(path: str | os.PathLike, max_bytes: int = MAX_RUN_FILE_BYTES) -> bytes:
    """The whole of a file of a run directory (open_run_file's rules)."""
    return read_regular(path, max_bytes)


def skipped_files(problems: list) -> list[str]:
    """The notes of the run directory's files that were skipped because they were no
    regular file or too large, among a report's run_details.problems (the core's words,
    rundir/run_files.h ReadFile)."""
    return [p for p in problems if isinstance(p, str) and p.endswith("; skipped")
            and (": not a regular file (" in p or ": too large: " in p)]


def run_file_note(path: str | os.PathLike, e: OSError) -> str | None:
    """What to say about a run directory's file that was skipped ("steps.jsonl: not a
    regular file (a FIFO or pipe); skipped"); None when it is simply missing."""
    if isinstance(e, FileNotFoundError):
        return None
    return f"{os.fsdecode(os.path.basename(path))}: {why(e)}; skipped"


def read_agents(run_dir: Path, skipped: list[str] | None = None) -> list[dict]:
    """agent/<pid>.json files (written by the agent at exit); unreadable ones skipped,
    and those that are no regular file or too large named in `skipped`."""
    out = []
    for p in sorted((run_dir / "agent").glob("*.json")):
        try:
            out.append(json.loads(read_run_file(p, MAX_AGENT_FILE_BYTES)))
        except OSError as e:
            note = run_file_note(p, e)
            if note is not None and skipped is not None:
                skipped.append(f"agent/{note}")
        except (ValueError, RecursionError):  # not JSON (UnicodeDecodeError included)
            continue
    return out


class Log:
    """supervisor.log: timestamped diagnostics, never shown unless asked for."""

    def __init__(self, path: Path) -> None:
        # backslashreplace: a path whose bytes are not UTF-8 (os.fsdecode's
        # surrogates) is logged as \udcff rather than stopping the run.
        self._f = open(path, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115

    def __call__(self, msg: str) -> None:
        # Diagnostics must never stop a run: on a full disk the log stays short.
        stamp = time.strftime("%H:%M:%S", time.gmtime())
        with contextlib.suppress(OSError, ValueError):
            self._f.write(f"{stamp} {msg}\n")
            self._f.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._f.close()
