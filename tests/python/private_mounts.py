"""Run a shell script in a private mount namespace with a small tmpfs mounted,
so that a test can fill a real file system (ENOSPC) without touching the
machine's mounts: `unshare --mount` as root, `unshare -rm` (a user namespace)
otherwise. Tests that need it skip where neither is allowed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def _unshare_prefix() -> list[str] | None:
    if shutil.which("unshare") is None:
        return None
    prefix = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "-rm"]
    probe = subprocess.run([*prefix, "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt 2>&1"],
                           capture_output=True, text=True)
    return prefix if probe.returncode == 0 else None


def run_on_full_tmpfs(mount: Path, script: str, size_kib: int = 64, fill: bool = True,
                      env: dict | None = None, timeout: float = 300,
                      ) -> subprocess.CompletedProcess:
    """Mount a `size_kib` tmpfs on `mount` (an existing empty directory), fill it
    to the last byte when `fill`, run `script` (sh) there, then list what it left
    on the tmpfs after a line `--- left:` (the mount vanishes with the namespace)."""
    prefix = _unshare_prefix()
    if prefix is None:
        pytest.skip("no private mount namespace (unshare) on this machine")
    filler = (f"dd if=/dev/zero of={mount}/.filler bs=1k count={size_kib * 2} 2>/dev/null;"
              if fill else "")
    full = (f"mount -t tmpfs -o size={size_kib}k tmpfs {mount} && cd {mount} && {filler}"
            f"( {script} ); rc=$?; echo '--- left:'; ls -A {mount}; exit $rc")
    return subprocess.run([*prefix, "sh", "-c", full], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def left_on_tmpfs(result: subprocess.CompletedProcess) -> list[str]:
    """The names run_on_full_tmpfs listed, without the filler."""
    tail = result.stdout.split("--- left:\n", 1)[1]
    return [n for n in tail.split() if n != ".filler"]
