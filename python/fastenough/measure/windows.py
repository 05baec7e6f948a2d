"""The three timing windows. Each runs `rounds` rounds of `n` calls and returns
the device time of every round (raw, never averaged here).

plain: mark, n calls, mark. The window includes the gaps where the device waited
       for the host to submit the next call.
dummy: a long device job first, then mark, n calls, mark: the host submits the
       batch while the device is still busy with the dummy, so the batch runs
       back to back. The margin left (dummy's device time minus the host's
       submission time of dummy + batch) is measured per round; <= 0 means the
       dummy ran out and gaps may be back.
graph: the n calls captured once into a device graph; mark, one replay, mark.

With flush_l2 the cache buffer is zeroed before each round, before the first
mark, so the flush itself is never timed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

WINDOWS = ("plain", "dummy", "graph")


def definition(window: str, kind: str, n: int, spin_s: float | None = None) -> str:
    if window == "plain" and kind == "cpu":
        return f"perf_counter_ns around {n} back-to-back calls, divided by {n} (cpu calls are " \
               "synchronous)"
    if window == "plain":
        return f"one event pair around {n} back-to-back calls, divided by {n}; includes queue " \
               "gaps when the host cannot submit calls as fast as the device runs them"
    if window == "dummy":
        spin = f"~{spin_s * 1e3:.1f} ms" if spin_s else "long"
        return f"a {spin} device job queued first on the same stream, then one event pair " \
               f"around {n} calls, divided by {n}: the host submits the batch while the device " \
               "is busy, so queue gaps are removed"
    return f"{n} calls captured once into a device graph; one event pair around a replay, " \
           f"divided by {n}: launch overhead removed (static shapes only)"


@dataclass
class Rounds:
    totals_s: list[float] = field(default_factory=list)  # device time of each round
    host_submit_s: list[float] = field(default_factory=list)  # host time to queue it
    margins_s: list[float] = field(default_factory=list)  # dummy only


def run_plain(timer, call, n: int, rounds: int, flush=None) -> Rounds:
    out = Rounds()
    for _ in range(rounds):
        timer.synchronize()
        if flush is not None:
            flush.zero_()
        t0 = time.perf_counter_ns()
        start = timer.mark()
        for _ in range(n):
            call()
        end = timer.mark()
        t1 = time.perf_counter_ns()
        timer.synchronize()
        out.totals_s.append(timer.seconds_between(start, end))
        out.host_submit_s.append((t1 - t0) / 1e9)
    return out


def run_dummy(timer, call, n: int, rounds: int, spin_s: float, flush=None) -> Rounds:
    out = Rounds()
    for _ in range(rounds):
        timer.synchronize()
        if flush is not None:
            flush.zero_()
        t0 = time.perf_counter_ns()
        before = timer.mark()
        timer.queue_spin(spin_s)
        start = timer.mark()
        for _ in range(n):
            call()
        end = timer.mark()
        t1 = time.perf_counter_ns()
        timer.synchronize()
        spin_device = timer.seconds_between(before, start)
        host = (t1 - t0) / 1e9
        out.totals_s.append(timer.seconds_between(start, end))
        out.host_submit_s.append(host)
        out.margins_s.append(spin_device - host)
    return out


def run_graph(timer, replay, rounds: int, flush=None) -> Rounds:
    out = Rounds()
    for _ in range(rounds):
        timer.synchronize()
        if flush is not None:
            flush.zero_()
        t0 = time.perf_counter_ns()
        start = timer.mark()
        replay()
        end = timer.mark()
        t1 = time.perf_counter_ns()
        timer.synchronize()
        out.totals_s.append(timer.seconds_between(start, end))
        out.host_submit_s.append((t1 - t0) / 1e9)
    return out
