"""The agent's own cost per step, and the guard that switches the agent off
when that cost grows (issue 37, item 7: the agent must never slow the program
down as it runs).

Two measures, read over intervals of steady steps:
  * time: the wall time spent inside the agent's Python hooks (the model-call,
    optimizer and DataLoader sources, the checks' module hooks and callbacks,
    the full-vocab-logits dispatch handler), outermost call only, and at
    least CALL_NS per call (a handler entered from C++ per op costs the round
    trip, whatever its body), less the loop's pauses for the tool (phase edges, the
    profiler window's start and stop: counted apart, never in a step), per
    step of the interval;
  * records: the entries held by the agent's containers (every list, dict, set
    and deque attribute of the agent, its rooms and the checks, one level down,
    and the module hook ids it keeps), a census by len() at the interval's end.
    The agent keeps about one number per step (the checks' step times); a
    record per module call, per hook put on a module created per step, per
    graph kept, grows faster than that.

The guard: after BASE_INTERVALS steady intervals (the baseline: the smallest
time per step of them, the records at their end), the agent switches itself
off (Agent.fail with an "own cost: ..." reason, which agent/<pid>.json and the
report's measurement show as agent-off) when
  * its time per step stays above GROWTH times the baseline plus FLOOR_NS and
    above MIN_SHARE of the step for OVER_INTERVALS intervals in a row, or
  * its records grew by more than RECORDS_PER_STEP per step since the baseline
    and hold more than RECORDS_MIN.
The intervals are read where the agent's Python code sees steps anyway (a step
recorded in Python, a batch of deferred steps replayed): no clock or census in
the program's steps beyond the two clock reads of each hook call.

Planting (tests only): opts["_test_own_cost"], or the environment variable
FASTENOUGH_TEST_OWN_COST (for a whole `fastenough run`), a JSON object
{"grow_ns": N, "grow_records": R, "grow_calls": C, "after": A}: from the A-th
step seen on, the agent sleeps N ns times the number of steps since then, per
step (inside its own timed hooks), makes C times that many empty hook calls,
and keeps R more records per step: a cost that grows as a leak would.
"""

from __future__ import annotations

import collections
import json
import os
import time
import types

INTERVAL_MIN_STEPS = 16
INTERVAL_MIN_NS = 500_000_000  # and this much step time, or...
INTERVAL_MAX_STEPS = 128  # ... this many steps
BASE_INTERVALS = 2
GROWTH = 3.0
FLOOR_NS = 200_000  # 0.2 ms a step over GROWTH x the baseline
# What one call into the agent costs the program at least, whatever its body
# measured: a dispatch mode's handler is entered from C++ for every op of the
# program, and the round trip, not the handler's body, is the cost (the
# full-vocab-logits mode that outlived its window: 16 -> 140 ms a step on the
# Lennard-Jones fit, its handler's body an increment).
CALL_NS = 5_000
MIN_SHARE = 0.10  # of the interval's step time
OVER_INTERVALS = 2
RECORDS_PER_STEP = 64
RECORDS_MIN = 200_000
_CONTAINERS = (list, dict, set, frozenset, collections.deque)


class OwnCost:
    def __init__(self, agent, plant: dict | None = None) -> None:
        self.agent = agent
        self.ns = 0  # inside the agent's hooks, outermost calls
        self.calls = 0
        self._depth = 0
        self.steps = 0  # steps seen (recorded or replayed)
        self.step_ns = 0  # their total duration
        self._iv = (0, 0, 0)  # (steps, ns, step_ns) at the interval's start
        self._pauses = 0  # the loop's pauses for the tool, then
        self._calls = 0  # hook calls, then
        self.intervals = 0  # steady intervals read
        self.base_ns: float | None = None  # own ns per step, baseline
        self.base_records: int | None = None
        self.base_steps = 0
        self.last: dict | None = None  # the last steady interval
        self.peak_ns_per_step = 0.0
        self.records = 0
        self.peak_records = 0
        self._over = 0
        self.tripped: str | None = None
        plant = plant or {}
        self._grow_ns = int(plant.get("grow_ns", 0) or 0)
        self._grow_records = int(plant.get("grow_records", 0) or 0)
        self._grow_calls = int(plant.get("grow_calls", 0) or 0)
        self._plant_after = int(plant.get("after", 0) or 0)
        self._planted: list = []

    # ------------------------------------------------------------------ hook time
    def enter(self) -> int:
        """At a hook's start: the clock, or 0 inside another of the agent's hooks."""
        if self._depth:
            self._depth += 1
            return 0
        self._depth = 1
        return time.perf_counter_ns()

    def leave(self, t0: int) -> None:
        self._depth = max(0, self._depth - 1)
        if t0:
            self.ns += time.perf_counter_ns() - t0
            self.calls += 1

    # ------------------------------------------------------------------ steps
    def on_steps(self, n: int, step_ns: int) -> None:
        """n steps of step_ns in all were recorded (inside one of the agent's hooks)."""
        if n <= 0:
            return
        self.steps += n
        self.step_ns += max(0, int(step_ns))
        if self._grow_ns or self._grow_records or self._grow_calls:
            self._plant(n)
        s0, _, d0 = self._iv
        d_steps, d_ns = self.steps - s0, self.step_ns - d0
        if d_steps >= INTERVAL_MAX_STEPS or (d_steps >= INTERVAL_MIN_STEPS
                                             and d_ns >= INTERVAL_MIN_NS):
            self._interval()

    def _plant(self, n: int) -> None:
        k_last = self.steps - self._plant_after
        n = min(n, k_last)
        if n <= 0:
            return
        if self._grow_ns:
            # the sum of k * grow_ns over the n steps just seen (k: steps since `after`)
            total = self._grow_ns * (2 * k_last - n + 1) * n // 2
            time.sleep(total / 1e9)
        if self._grow_records:
            self._planted.extend(range(self._grow_records * n))
        if self._grow_calls:  # calls whose bodies cost nothing, k * grow_calls a step
            for _ in range(self._grow_calls * (2 * k_last - n + 1) * n // 2):
                self.leave(self.enter())

    def _interval(self) -> None:
        agent = self.agent
        s0, n0, d0 = self._iv
        # Phase edges and the profiler window's start and stop run inside the
        # hooks too, but they are pauses of the loop (phases.py), counted
        # apart and never part of a step: not a cost per step.
        pauses = agent.phases.pause_ns + agent.window.cost_ns
        steps, step_ns = self.steps - s0, self.step_ns - d0
        own = max(0, self.ns - n0 - (pauses - self._pauses),
                  (self.calls - self._calls) * CALL_NS)
        self._iv = (self.steps, self.ns, self.step_ns)
        self._calls = self.calls
        self._pauses = pauses
        if self.tripped is not None or not agent.enabled or agent.phases.phase != "steady":
            return
        per = own / steps
        share = own / step_ns if step_ns > 0 else 0.0
        records = self.count_records()
        self.records = records
        self.peak_records = max(self.peak_records, records)
        self.peak_ns_per_step = max(self.peak_ns_per_step, per)
        self.last = {"steps": steps, "own_ns_per_step": round(per),
                     "share": round(share, 4), "records": records}
        self.intervals += 1
        if self.intervals <= BASE_INTERVALS:
            self.base_ns = per if self.base_ns is None else min(self.base_ns, per)
            self.base_records, self.base_steps = records, self.steps
            return
        base = self.base_ns or 0.0
        if per > GROWTH * base + FLOOR_NS and share > MIN_SHARE:
            self._over += 1
        else:
            self._over = 0
        if self._over >= OVER_INTERVALS:
            self._trip(f"own cost: the agent's own time grew from {base / 1e6:.3f} ms to "
                       f"{per / 1e6:.3f} ms a step ({share:.0%} of the steps) over "
                       f"{self.steps:,} steps, so it switched itself off to stop slowing "
                       "the program")
            return
        grew = records - (self.base_records or 0)
        since = self.steps - self.base_steps
        if records > RECORDS_MIN and since > 0 and grew > RECORDS_PER_STEP * since:
            self._trip(f"own cost: the agent's own records grew from "
                       f"{self.base_records:,} to {records:,} over {since:,} steps "
                       f"({grew / since:,.0f} a step), so it switched itself off to stop "
                       "its memory growing with the program's steps")

    def _trip(self, why: str) -> None:
        self.tripped = why
        self._planted = []
        agent = self.agent
        agent.fail(why)
        checks = agent.checks
        if checks is not None:
            try:  # noqa: SIM105 - the checks' hooks come off too
                checks.internal_error(why)
            except Exception:  # noqa: BLE001, S110
                pass

    # ------------------------------------------------------------------ records
    def count_records(self) -> int:
        """Entries of the agent's containers (one level below each of its rooms)."""
        from fastenough.agent import module_hooks

        agent = self.agent
        seen: set[int] = set()
        total = len(module_hooks.OURS)
        rooms = [agent, self, agent.checks]
        for obj in list(vars(agent).values()) + list(vars(agent.checks or self).values()):
            # The agent's rooms; not torch or any other module it holds.
            if hasattr(obj, "__dict__") and not isinstance(obj, (type, types.ModuleType)):
                rooms.append(obj)
        for room in rooms:
            if room is None or id(room) in seen:
                continue
            seen.add(id(room))
            try:
                values = list(vars(room).values())
            except TypeError:
                continue
            for v in values:
                if isinstance(v, _CONTAINERS) and id(v) not in seen:
                    seen.add(id(v))
                    total += len(v)
        return total

    def summary(self) -> dict:
        return {
            "hook_ns": self.ns,
            "hook_calls": self.calls,
            "steps": self.steps,
            "ns_per_step": round(self.ns / self.steps) if self.steps else None,
            "steady_intervals": self.intervals,
            "base_ns_per_step": round(self.base_ns) if self.base_ns is not None else None,
            "peak_ns_per_step": round(self.peak_ns_per_step),
            "last_interval": self.last,
            "records": self.records,
            "base_records": self.base_records,
            "peak_records": self.peak_records,
            "switched_off": self.tripped,
        }


def planted_by_env() -> dict | None:
    """FASTENOUGH_TEST_OWN_COST (tests only): the cost to plant, or None."""
    raw = os.environ.get("FASTENOUGH_TEST_OWN_COST")
    if not raw:
        return None
    try:
        plant = json.loads(raw)
    except ValueError:
        return None
    return plant if isinstance(plant, dict) else None
