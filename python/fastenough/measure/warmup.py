"""Adaptive warmup: plain rounds of n calls until two consecutive rounds agree
within a tolerance (the rule is _core.rounds_agree), capped in rounds and time.

First calls are slow for reasons that are not the op: lazy initialisation,
allocator growth, autotuning, JIT compilation, clocks ramping up. A fixed
budget (triton's 25 ms) stops too early on some devices; waiting for two
agreeing rounds adapts to the op. The count is reported, never hidden.
Limit: a slow phase that holds one constant speed for two whole rounds looks
steady to this rule; pass warmup=N calls when such a first-call cost is known.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from fastenough import _core
from fastenough.errors import UsageError
from fastenough.measure.windows import run_plain

AUTO_TOLERANCE = 0.05
AUTO_MAX_ROUNDS = 20
AUTO_MAX_SECONDS = 10.0


@dataclass
class WarmupRecord:
    mode: str  # "auto" or "fixed"
    calls: int = 0
    rounds: int = 0
    converged: bool | None = None  # None for a fixed warmup
    stopped: str = ""  # rounds agreed | round cap | time cap | fixed count
    tolerance: float | None = None
    per_call_s: list[float] = field(default_factory=list)  # per-call time of each round
    host_submit_s: float | None = None  # host time to submit n calls, last round

    def to_dict(self) -> dict:
        return asdict(self)


def warm_up(timer, call, n: int, warmup, tolerance: float = AUTO_TOLERANCE,
            max_rounds: int = AUTO_MAX_ROUNDS, max_seconds: float = AUTO_MAX_SECONDS
            ) -> WarmupRecord:
    if warmup == "auto":
        rec = WarmupRecord(mode="auto", tolerance=tolerance)
        began = time.perf_counter()
        while True:
            r = run_plain(timer, call, n, 1)
            rec.rounds += 1
            rec.calls += n
            rec.per_call_s.append(r.totals_s[0] / n)
            rec.host_submit_s = r.host_submit_s[0]
            if len(rec.per_call_s) >= 2 and _core.rounds_agree(
                    rec.per_call_s[-2], rec.per_call_s[-1], tolerance):
                rec.converged, rec.stopped = True, "rounds agreed"
                break
            if rec.rounds >= max_rounds:
                rec.converged, rec.stopped = False, "round cap"
                break
            if time.perf_counter() - began >= max_seconds:
                rec.converged, rec.stopped = False, "time cap"
                break
        return rec
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise UsageError(f"warmup must be 'auto' or a number of calls >= 0, not {warmup!r}")
    rec = WarmupRecord(mode="fixed", stopped="fixed count")
    left = warmup
    while left > 0:
        k = min(n, left)
        r = run_plain(timer, call, k, 1)
        rec.rounds += 1
        rec.calls += k
        rec.per_call_s.append(r.totals_s[0] / k)
        if k == n:
            rec.host_submit_s = r.host_submit_s[0]
        left -= k
    return rec
