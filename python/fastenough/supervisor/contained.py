"""The analysis at the end of `fastenough run`, in a forked child, so that a
crash of the core cannot take the program's exit status with it.

`run` returns the program's exit status and keeps the run directory whatever
the analysis does. A Python exception in the analysis was already caught
(session._analyze). A crash of the C++ core was not: the supervisor died by
SIGSEGV after the program had exited 0, so the user saw exit status 139, no
report and no word of why (a build whose header changed while it compiled did
exactly that, issue 37's calibration at 01:38 on 2026-12-07). In a child the
crash is the child's: the run reports "the analysis crashed (signal 11)", the
run directory stays for `fastenough report --reanalyze`, and the exit status is
the program's.

The child is a fork, not a new interpreter: the core and the run's state are
already loaded, a fork costs milliseconds, and the trace's memory is the
child's and goes with it. A process with other threads (the MCP server's)
is not forked: a lock another thread held at the fork would stay held in the
child; there the analysis runs in-process, as before.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections.abc import Callable


class AnalysisCrashed(RuntimeError):
    """The analysis's process ended without an answer (a signal, an exit)."""


def call_contained(fn: Callable[[], str]) -> str:
    """fn() in a forked child; its text, or its exception raised here again
    (as RuntimeError with the same text when it cannot be pickled); a crash
    raises AnalysisCrashed naming the signal."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return fn()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, never return
        status = 0
        try:
            os.close(read_end)
            try:
                answer = ("text", fn())
            except BaseException as e:  # noqa: BLE001 - carried to the parent
                answer = ("error", _picklable(e))
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        except BaseException:  # noqa: BLE001 - the parent sees no answer
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as inp:
        data = inp.read()  # to EOF: the child's answer, however long
    _, wait_status = _wait(pid)
    if not data:
        if os.WIFSIGNALED(wait_status):
            sig = os.WTERMSIG(wait_status)
            raise AnalysisCrashed(f"the analysis crashed ({_signal_name(sig)}, signal {sig}): "
                                  "a bug in fastenough; the run directory is kept")
        raise AnalysisCrashed("the analysis ended without an answer (exit status "
                              f"{os.waitstatus_to_exitcode(wait_status)})")
    kind, value = pickle.loads(data)
    if kind == "error":
        raise value
    return value


def _wait(pid: int) -> tuple[int, int]:
    while True:
        try:
            return os.waitpid(pid, 0)
        except InterruptedError:  # a signal the supervisor forwards: wait on
            continue


def _picklable(e: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001 - keep the text, lose the type
        return RuntimeError(f"{type(e).__name__}: {e}")


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
