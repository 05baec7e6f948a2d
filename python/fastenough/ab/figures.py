"""What one run's report says of its speed, its start and its memory."""

from __future__ import annotations

from dataclasses import dataclass

from fastenough.report.model import Report
from fastenough.report.timing_only import timing_status

# Phases before the steady loop: a one-time cost of every run (docs/method.md, Phases).
COLD_PHASES = ("startup", "load", "prepare", "warmup")

# The unit when the sides' steps are unlike: each run's whole wall time, as runs
# per second (B/A of it is A's wall time over B's).
WHOLE_RUN = "runs/s"


@dataclass
class Figures:
    steps_per_s: float | None
    items_per_s: float | None
    step_median_ns: float | None
    steady_steps: int
    cold_start_ns: int | None
    wall_ns: int | None
    peak_rss_bytes: int | None
    peak_device_bytes: int | None  # the allocator's peak (or device memory used)
    measurement: str  # complete | partial | blind
    # What the steady steps are (the report's headline mode: train | eval); not a
    # figure of the document's runs (document._run_figures), it decides unlike_steps.
    mode: str | None = None

    def throughput(self, unit: str) -> float | None:
        if unit == WHOLE_RUN:  # whole runs per second: > 1 of B/A still means B is faster
            return 1e9 / self.wall_ns if self.wall_ns and self.wall_ns > 0 else None
        return self.items_per_s if unit == "items/s" else self.steps_per_s


def figures_of(report: Report) -> Figures:
    steps = report.steps
    first_rank = [p for p in report.phases if p.rank == 0]
    cold = [p.host_ns or 0 for p in first_rank if p.name in COLD_PHASES]
    details = report.run_details.phases if report.run_details is not None else ()
    rss = [d.rss_max for d in details if d.rss_max]
    device = [v for p in report.phases for v in (p.alloc_peak, p.mem_used_max) if v]
    return Figures(
        steps_per_s=steps.steady_steps_per_s,
        items_per_s=steps.items_per_s,
        step_median_ns=steps.steady_median_ns,
        steady_steps=steps.steady_count,
        cold_start_ns=sum(cold) if cold else None,
        wall_ns=report.run.wall_ns if report.run is not None else None,
        peak_rss_bytes=max(rss) if rss else None,
        peak_device_bytes=max(device) if device else None,
        # Of the timing: a timing-only run's checks were off on purpose (timing_only.py).
        measurement=(timing_status(report.measurement) if report.measurement is not None
                     else "blind"),
        mode=steps.mode or None,
    )


def common_unit(all_figures: list[Figures]) -> str | None:
    """items/s when every run counted items (comparable across batch sizes), else
    steps/s when every run has steady steps, else None (nothing to compare)."""
    if all_figures and all(f.items_per_s for f in all_figures):
        return "items/s"
    if all_figures and all(f.steps_per_s for f in all_figures):
        return "steps/s"
    return None


def _side_steps(figs: list[Figures | None]) -> tuple[str | None, int]:
    """The mode most of a side's measured runs have as their steady steps' (None when
    no run says), and the median count of their steady steps."""
    from collections import Counter

    from fastenough import _core

    measured = [f for f in figs if f and f.steps_per_s]
    modes = Counter(f.mode for f in measured if f.mode)
    counts = [float(f.steady_steps) for f in measured if f.steady_steps]
    return (modes.most_common(1)[0][0] if modes else None,
            round(_core.median(counts)) if counts else 0)


def unlike_steps(a: list[Figures | None], b: list[Figures | None], unit: str) -> str | None:
    """Why A's and B's steady steps are not the same thing, or None when they are.

    A fix can change what the agent counts as a step: cleanrl's DQN, its acting
    forward moved under inference_mode, has its ~2800 acting forwards counted as
    evaluation steps where A had ~400 training steps; steps/s then compared an
    acting forward with a training step (8.87x "B faster" for the same training
    done in equal CPU time; bench/calibrate_savings.md). Unlike: the steady
    steps' modes differ (train in one side, eval in the other), or, in steps/s,
    their steady counts are more than 2x apart. Items/s compares the same items
    whatever a step holds: a batch size change (a protocol change) is not this."""
    mode_a, count_a = _side_steps(a)
    mode_b, count_b = _side_steps(b)
    other_mode = bool(mode_a and mode_b and mode_a != mode_b)
    other_count = (unit == "steps/s" and min(count_a, count_b) > 0
                   and max(count_a, count_b) > 2 * min(count_a, count_b))
    if not other_mode and not other_count:
        return None

    def steps(n: int, mode: str | None) -> str:
        return f"{n} {mode} steps" if mode else f"{n} steps"

    return (f"the fix changed what a step is: A's steady steps are {steps(count_a, mode_a)}, "
            f"B's {steps(count_b, mode_b)}; compared on the whole run's time")
