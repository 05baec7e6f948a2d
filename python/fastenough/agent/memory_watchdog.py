"""Holds the profiler window to the agent's memory bound within a step.

torch's profiler keeps a record of every op it sees until the window ends
(about 2 KiB per op on the CPU, measured: an LSTM time-series step of 360,000
ops grew the process by 740 MiB): a program with long steps passed the bound
(+5% or +64 MiB, whichever is larger) long before the window's per-step check
could see it (time_sequence_prediction: 1550 MiB plain, 2464 MiB under the
tool). So while the window is on, a thread reads the process's heap in use (or
its RSS) every 10 ms and, once the growth since the window began passes what
the window may take (profile_window.py), asks the main
thread to stop the profiler: the profiler's state belongs to the thread that
started it, and torch crashes when another thread stops it. The request is
_thread.interrupt_main(signum) with a Python handler installed for a
real-time signal nobody else handles, for the window's duration: no OS signal
is sent (no EINTR in the program's system calls); the handler runs on the
main thread at its next bytecode boundary.

On a loaded machine the thread's polls can come late (a starved thread waits
for the GIL and a core), and the process grows on until the next one. So when
the polls come more than twice POLL_S apart, the watchdog asks at the poll
before the one that would see the bound passed: the growth now plus its mean
rate since the window began times the longest of the last polls' intervals.
(Written for an overshoot that turned out to be a check's dispatch mode inside
the window, checks/logits.py; no window has been seen changed by it yet.)
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import threading
import time

from fastenough.agent.memory import rss_bytes

POLL_S = 0.01
LATE_POLLS = 4  # the intervals a late poll's projection looks back on


def _free_signal():
    """A real-time signal with the default disposition (nobody's), else None."""
    lo, hi = getattr(signal, "SIGRTMIN", None), getattr(signal, "SIGRTMAX", None)
    if lo is None or hi is None:
        return None
    for signum in range(hi - 2, lo + 2, -1):  # away from the ends other tools take
        try:
            if signal.getsignal(signum) == signal.SIG_DFL:
                return signum
        except (ValueError, OSError):
            continue
    return None


class MemoryWatchdog:
    def __init__(self, base: int, bound: int, on_exceed, measure=rss_bytes,
                 clock=time.monotonic) -> None:
        self.base = base  # measure() when the window began
        self.measure = measure
        self.clock = clock
        self._first: tuple[float, int] | None = None  # (time, measure) of the first poll
        self._last_at: float | None = None
        self._intervals: list[float] = []
        self.bound = bound
        self.on_exceed = on_exceed  # called on the main thread, with the growth in bytes
        self.grew: int | None = None  # the growth that tripped it
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._signum = None
        self._previous = None

    def start(self) -> bool:
        """On the main thread only (signal handlers are installed there)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        signum = _free_signal()
        if signum is None:
            return False
        try:
            self._previous = signal.signal(signum, self._handler)
        except (ValueError, OSError):
            return False
        self._signum = signum
        self._thread = threading.Thread(target=self._watch, name="fastenough-memory",
                                        daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        self._stop.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=1.0)
        self._thread = None
        if self._signum is not None and threading.current_thread() is threading.main_thread():
            try:  # noqa: SIM105
                signal.signal(self._signum, self._previous or signal.SIG_DFL)
            except (ValueError, OSError):
                pass
            self._signum = None

    def _watch(self) -> None:
        while not self._stop.wait(POLL_S):
            if not self.poll():
                return

    def poll(self) -> bool:
        """One reading; asks the main thread to stop the window when the growth,
        or where the polls come late its projection to the next poll, passes the
        bound. False: nothing can be measured (the thread ends)."""
        now = self.measure()
        if now is None:
            return False
        grew = self.projected(now, self.clock()) - self.base
        if grew > self.bound:
            # Asked again at each poll until the main thread acts: it may
            # put the request off (inside a backward pass, say).
            self.grew = grew
            if self._signum is not None:  # (started: the handler is installed)
                with contextlib.suppress(RuntimeError, ValueError, OSError):
                    _thread.interrupt_main(self._signum)
        return True

    def projected(self, now: int, t: float) -> int:
        """`now`, or where the polls come late (module docstring) what the next
        poll would read at the growth's mean rate so far."""
        if self._last_at is not None:
            self._intervals = [*self._intervals[-(LATE_POLLS - 1):], t - self._last_at]
        self._last_at = t
        if self._first is None:
            self._first = (t, now)
            return now
        lag = max(self._intervals)
        since = t - self._first[0]
        if lag <= 2 * POLL_S or since <= 0:
            return now
        rate = max(0.0, (now - self._first[1]) / since)
        return now + int(rate * lag)

    def _handler(self, signum, frame) -> None:
        # On the main thread, between two bytecodes of whatever ran.
        if self.grew is not None and not self._stop.is_set():
            self.on_exceed(self.grew, frame)


class StepPeakSampler:
    """The heap's rise within each step, for the steps before the profiler
    window (profile_window.py calibrates on them): a thread reads measure()
    every POLL_S and keeps the largest value since the last step boundary;
    mark() at a boundary returns the step's rise (its peak over its start) and
    begins the next. A step shorter than a poll may show less than its peak:
    the window is then the more careful."""

    def __init__(self, measure) -> None:
        self.measure = measure
        self._start: int | None = None
        self._max: int | None = None
        self._gen = 0  # a poll that read across a mark() does not count toward the next step
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        now = self.measure()
        if now is None:
            return False
        self._start = self._max = now
        self._thread = threading.Thread(target=self._watch, name="fastenough-step-peak",
                                        daemon=True)
        self._thread.start()
        return True

    def mark(self) -> int | None:
        now = self.measure()
        if now is None or self._start is None:
            return None
        self._gen += 1
        rise = max(self._max or now, now) - self._start
        self._start = self._max = now
        return max(0, rise)

    def stop(self) -> None:
        self._stop.set()
        t, self._thread = self._thread, None
        if t is not None and t is not threading.current_thread():
            t.join(timeout=1.0)

    def _watch(self) -> None:
        while not self._stop.wait(POLL_S):
            gen = self._gen
            now = self.measure()
            if now is None:
                return
            if gen == self._gen and (self._max is None or now > self._max):
                self._max = now
