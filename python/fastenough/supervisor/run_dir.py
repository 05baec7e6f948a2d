"""Run directory creation and the supervisor's own files (meta.json, supervisor.log)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
import socket
import subprocess
import time
from pathlib import Path


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
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(utf8_safe(obj), f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


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


def read_agents(run_dir: Path) -> list[dict]:
    """agent/<pid>.json files (written by the agent at exit); unreadable ones skipped."""
    out = []
    for p in sorted((run_dir / "agent").glob("*.json")):
        try:
            out.append(json.loads(p.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return out


class Log:
    """supervisor.log: timestamped diagnostics, never shown unless asked for."""

    def __init__(self, path: Path) -> None:
        # backslashreplace: a path whose bytes are not UTF-8 (os.fsdecode's
        # surrogates) is logged as \udcff rather than stopping the run.
        self._f = open(path, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115

    def __call__(self, msg: str) -> None:
        stamp = time.strftime("%H:%M:%S", time.gmtime())
        self._f.write(f"{stamp} {msg}\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()
