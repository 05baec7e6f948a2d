"""A real pseudo-terminal for tests of what a user at a terminal sees: a
process (a shell, or fastenough itself) runs with the pty as its controlling
terminal; the test types into it and waits for text to appear."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import time

from foreground import default_signals


class PtySession:
    def __init__(self, argv: list[str], env: dict | None = None, cwd: str | None = None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: a session of its own, the pty its terminal
            try:
                default_signals()  # a terminal's foreground job, also under `pytest &`
                if cwd:
                    os.chdir(cwd)
                os.execve(argv[0], argv, {**os.environ, **(env or {})})
            finally:
                os._exit(127)
        self.seen = ""

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def expect(self, text: str, timeout: float = 60) -> str:
        """Wait until `text` has appeared in the output (all of it is kept)."""
        self._read_until(lambda: text in self.seen, text, timeout)
        return self.seen

    def expect_match(self, pattern: str, timeout: float = 60) -> re.Match:
        """Wait until the regular expression matches the output; the match."""
        self._read_until(lambda: re.search(pattern, self.seen) is not None, pattern, timeout)
        return re.search(pattern, self.seen)

    def _read_until(self, done, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} not seen within {timeout} s; output:\n{self.seen}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # EIO: every process on the pty is gone
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r} never came; output:\n{self.seen}")
                self.seen += chunk.decode(errors="replace")

    def wait(self, timeout: float = 60) -> int:
        """The exit status of the process started, reading what it still writes."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                with contextlib.suppress(OSError):
                    self.seen += os.read(self.fd, 65536).decode(errors="replace")
        raise AssertionError(f"still running after {timeout} s; output:\n{self.seen}")

    def _session(self) -> list[int]:
        """Every process in the pty's session (its leader is the process started):
        background jobs of a shell have groups of their own."""
        members = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        fields = f.read().rsplit(b")", 1)[1].split()
                    if int(fields[3]) == self.pid:  # state ppid pgrp session
                        members.append(int(entry))
        return members

    def close(self) -> None:
        for pid in self._session():  # nothing a failed test started outlives it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        os.close(self.fd)
