"""A child that ends with its parent, so that none runs on unsupervised when
fastenough dies. In the foundation because every layer that starts a process uses
it.

The user's program (supervisor/spawn.py) gets the kernel's parent-death signal
(`die_with_parent`): it is not fastenough's code, and one SIGTERM ends it as `kill`
does.

fastenough's own children, the verbs `fastenough mcp` starts (mcp/calls.py) and
the runs `fastenough ab` starts (ab/runner.py), are linked by a pipe instead
(`ParentLink`, `watch_parent`): when the starter ends, however it ends (SIGKILL
included), the child must get exactly one SIGTERM, which `fastenough run` answers as
it answers Ctrl-C: it stops the program and writes the report. The kernel's signal
cannot say "once": it is sent each time the child is handed to a new parent, and a
multi-threaded parent (the MCP server's worker threads) hands it from thread to
thread as its threads exit one by one. A server killed with SIGKILL on a busy
machine sent `fastenough run` two SIGTERMs: the first stopped the program, the
second came while the report was being written and killed `fastenough run` without
it (tests/python/run/test_parent_link.py). With the pipe, the end of the file (every
write end closed: the starter has exited) is one event, answered with one SIGTERM."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
DEATH_SIGNAL = signal.SIGTERM  # what the child gets when fastenough dies


def die_with_parent(parent: int):
    """A preexec_fn: the child gets DEATH_SIGNAL when its parent (pid `parent`, the
    thread that forks it) dies. Prepared here, in the parent, so that the child imports
    and allocates nothing (other threads may hold locks at the fork); libc's prctl is
    looked up before the fork for the same reason."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def setup() -> None:
        prctl(PR_SET_PDEATHSIG, int(DEATH_SIGNAL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the line above
            os.kill(os.getpid(), DEATH_SIGNAL)

    return setup


ENV = "FASTENOUGH_PARENT_FD"


class ParentLink:
    """The starter's side: `env` and `pass_fds` go to Popen; `started()` after Popen
    closes the child's end here; the write end stays open while this process lives
    (closing it early would end the child: `close()` is for a child that has ended)."""

    def __init__(self) -> None:
        # Both ends close on exec: only the child named by pass_fds gets the read end,
        # and no other child of this process holds the write end open.
        self._read, self._write = os.pipe()
        self.env = {ENV: str(self._read)}
        self.pass_fds = (self._read,)

    def started(self) -> None:
        self._read = _closed(self._read)

    def close(self) -> None:
        self._read = _closed(self._read)
        self._write = _closed(self._write)


def _closed(fd: int) -> int:
    """Closes `fd` once and returns -1 to keep in its place: closing a number twice
    could close another thread's file that was given the same number in between
    (the MCP server opens files while its calls run)."""
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
    return -1


def watch_parent() -> None:
    """The child's side, first thing at start: when the environment names a link,
    forget the name (the program this process runs never sees it), keep the fd from
    later children, and send this process SIGTERM once when the starter is gone."""
    value = os.environ.pop(ENV, None)
    if value is None:
        return
    try:
        fd = int(value)
        os.set_inheritable(fd, False)
    except (ValueError, OSError):  # not a link of ours: nothing to watch
        return

    def wait_for_the_end() -> None:
        try:
            while os.read(fd, 1):  # the starter never writes: only the end comes
                pass
        except OSError:  # the fd is not a pipe we can read: nothing to watch
            return
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=wait_for_the_end, name="fastenough-parent-link",
                     daemon=True).start()
