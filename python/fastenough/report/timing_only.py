"""`fastenough run --timing-only`: what its report's measurement means for timing.

A timing-only run turns the agent's checks and profiler window off on purpose
(agent/bootstrap.py TIMING_ONLY_OFF), and its report's measurement says so with
the reason `checks-off` (partial: no finding of the checks was looked for).
Its steps were timed all the same: for what relies on the timing alone (`run
--require-complete` of such a run, `ab`'s figures, the MCP run tool), the
measurement's status is that of its other reasons.
"""

from __future__ import annotations

CHECKS_OFF = "checks-off"


def timing_status(measurement) -> str:
    """complete | partial | blind, from the reasons other than checks-off (a typed
    report.measurement; None, a trace's report: complete)."""
    if measurement is None:
        return "complete"
    reasons = [r for r in measurement.reasons if r.code != CHECKS_OFF]
    if len(reasons) == len(measurement.reasons):
        return measurement.status
    if not reasons:
        return "complete"
    return "blind" if any(r.level == "blind" for r in reasons) else "partial"


def checks_were_off(measurement) -> bool:
    return measurement is not None and any(r.code == CHECKS_OFF for r in measurement.reasons)
