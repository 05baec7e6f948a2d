"""What a run's measurement saw, said before anything else, and the line a
report without findings ends with: "no findings" is a verdict only when every
source ran and saw steady steps (report.measurement, rundir/measurement.h)."""

from __future__ import annotations

from fastenough.render.units import fmt_bytes, fmt_ns
from fastenough.render.view.model import Code, MeasurementView, Reason
from fastenough.report.model import Measurement, Report

_HEADLINE = {
    "blind": "Measurement incomplete: fastenough did not see what it measures",
    "partial": "Measurement incomplete: parts of the run were not measured",
}


def complete(report: Report) -> bool:
    m = report.measurement
    return m is None or m.status == "complete"


def measurement_view(report: Report) -> MeasurementView:
    """No headline for a complete measurement (or a trace); else a headline and
    the reasons, one each."""
    m = report.measurement
    view = MeasurementView(recorded=m is not None, tool_cost=tool_cost_line(report))
    if m is None:
        # A trace: its reading counters say what was lost.
        lost = [c for c in report.counters if c.severity in ("error", "data-loss")]
        view.status = "partial" if lost else "complete"
        view.causes = [Reason(Code(c.name), c.severity, c.description, c.count) for c in lost]
        view.info_counters = len(report.counters) - len(lost)
        return view
    view.status = m.status
    view.causes = [Reason(Code(r.code), r.level, r.text) for r in m.reasons]
    view.stopped_early = m.profile_stopped_early or None
    if m.status != "complete":
        view.headline = _HEADLINE.get(m.status, "Measurement incomplete") + ":"
        view.reasons = [f"{r.text}" for r in m.reasons]
    else:
        view.complete_line = complete_line(m)
    return view


def complete_line(m: Measurement) -> str:
    """The first line of a complete run's report (README: what the measurement saw
    comes first, complete or not)."""
    steps, procs = m.steady_steps, m.processes
    seen = []
    if isinstance(steps, int):
        seen.append(f"{steps:,} steady step{'s' if steps != 1 else ''}")
    if isinstance(procs, int) and procs > 1:
        seen.append(f"{procs} processes")
    return ("Measurement complete: " + (", ".join(seen) + "; " if seen else "")
            + "torch, the steps and the checks were all seen, so what follows covers the run")


def tool_cost_line(report: Report) -> str | None:
    """The time the loop stood still for fastenough (never counted as steady time)."""
    m = report.measurement
    if m is None:
        return None
    pause, window = m.tool_pause_ns or 0, m.profile_cost_ns or 0
    if not pause and not window:
        return None
    line = (f"fastenough's own cost: {fmt_ns(pause)} in {m.tool_pauses} phase edges "
            f"(device waits, memory census), {fmt_ns(window)} starting and writing the profiler "
            "window; none of it is in the steady figures")
    rise = m.profile_peak_rss_rise_bytes
    if rise:
        line += f"; the window raised the peak RSS by at most {fmt_bytes(rise)}"
        bound = m.profile_memory_bound_bytes
        if bound and rise > bound and any(r.code == "no-trace" for r in m.reasons):
            # Abandoned within its first step: fewer steps cannot help (a step
            # torch ran from C++, a backward pass, kept the stop waiting).
            line += (f", more than fastenough's bound of {fmt_bytes(bound)} (the window "
                     "recorded nothing and still cost that: its first step outgrew the "
                     "bound, and the stop waits while torch runs a backward pass; "
                     "--no-trace keeps the run within it, --trace-no-shapes makes each "
                     "record smaller)")
        elif bound and rise > bound:
            line += (f", more than fastenough's bound of {fmt_bytes(bound)} (torch's profiler "
                     "expands its records when it stops, after the window's last check; "
                     "--trace-steps 1 or --no-trace keep the run within it)")
    early = m.profile_stopped_early
    if early:
        line += (f"; the window ended early to stay within fastenough's memory bound "
                 f"({early}: torch's profiler keeps a record of every op it sees)")
    if m.profile_mode:
        line += f"; the window profiled {m.profile_mode} steps"
        if m.profile_moved:
            line += f" (it ran again there: {m.profile_moved})"
        elif m.profile_not_moved:
            line += f" ({m.profile_not_moved})"
    return line


def no_findings_line(report: Report) -> str:
    if report.run is None:
        # A trace shows where the time went, not what the program did with its
        # outputs: the agent's checks find what it cannot see.
        return ("none in this trace. A trace cannot see padding, logits or hidden states "
                "nobody reads, a KV cache built for scoring, autograd left on in evaluation "
                "or duplicated weights: `fastenough run -- python your_script.py` watches "
                "the program itself.")
    if complete(report):
        return ("none. Nothing in this run is avoidable waste that fastenough knows how to "
                "detect.")
    return ("none found, but the measurement was incomplete (see its first lines): this is "
            "not a clean bill of health.")
