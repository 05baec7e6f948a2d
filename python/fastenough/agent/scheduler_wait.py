"""The calling thread's wait for a core: Linux's schedstat run_delay, the time the
thread was ready to run but every core it may use was taken. On a host-only job
(CPU ranks over gloo) a rank the scheduler keeps waiting arrives late at every
collective without having more to do; its profiler window records this wait so
the report can tell the machine's lateness from the program's
(rundir/scheduler_wait.cc)."""

from __future__ import annotations

_PATH = "/proc/thread-self/schedstat"  # "<on-cpu ns> <run_delay ns> <timeslices>"


def run_delay_ns() -> int | None:
    """The thread's total wait for a core so far; None where the kernel does not say."""
    try:
        with open(_PATH, "rb") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
