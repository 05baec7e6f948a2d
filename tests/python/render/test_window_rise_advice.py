"""The advice beside a profiler window that raised the peak RSS past
fastenough's bound (issue 37, item 7: functorch's Lennard-Jones example, 1000
points, default options: the window's first step is 84% backward, the stop
waits for it, and abandoning the window that recorded nothing raised the peak
RSS by 453 MiB against a 64 MiB bound; the report then told the user to run
with --trace-steps 1, which that run already had in effect)."""

from __future__ import annotations

from report_docs import report_doc
from typed_reports import build_view

RISE, BOUND = 453 << 20, 64 << 20
NOTHING = {"code": "no-trace", "level": "partial",
           "text": "the profiler window recorded nothing: within its first step the process "
                   "grew so that stopping torch's profiler would raise the peak RSS by about "
                   "237 MiB"}


def _markdown(reasons: list) -> str:
    """The line of fastenough's own cost, as every renderer shows it."""
    return build_view(report_doc(measurement={
        "status": "partial" if reasons else "complete", "reasons": reasons,
        "profile_cost_ns": 30_000_000, "profile_peak_rss_rise_bytes": RISE,
        "profile_memory_bound_bytes": BOUND})).measurement.tool_cost


def test_a_window_that_recorded_nothing_is_not_told_to_record_fewer_steps():
    md = _markdown([NOTHING])
    assert "more than fastenough's bound of 64.0 MiB" in md
    assert "--trace-steps 1" not in md
    assert "--no-trace" in md and "--trace-no-shapes" in md


def test_a_window_that_recorded_steps_keeps_the_fewer_steps_advice():
    md = _markdown([])
    assert "more than fastenough's bound of 64.0 MiB" in md
    assert "--trace-steps 1 or --no-trace" in md
