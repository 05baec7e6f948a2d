"""A child that ends with its parent: the supervisor's child program
(supervisor/spawn.py), the sides `fastenough ab` runs (ab/runner.py) and the verbs
`fastenough mcp` starts (mcp/calls.py) get a parent-death signal, so that none runs
on unsupervised when fastenough dies. In the foundation because every layer that
starts a process uses it."""

from __future__ import annotations

import ctypes
import os
import signal

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
