"""What one run's report says of its speed, its start and its memory."""

from __future__ import annotations

from dataclasses import dataclass

from fastenough.report.model import Report

# Phases before the steady loop: a one-time cost of every run (docs/method.md, Phases).
COLD_PHASES = ("startup", "load", "prepare", "warmup")


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

    def throughput(self, unit: str) -> float | None:
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
        measurement=report.measurement.status if report.measurement is not None else "blind",
    )


def common_unit(all_figures: list[Figures]) -> str | None:
    """items/s when every run counted items (comparable across batch sizes), else
    steps/s when every run has steady steps, else None (nothing to compare)."""
    if all_figures and all(f.items_per_s for f in all_figures):
        return "items/s"
    if all_figures and all(f.steps_per_s for f in all_figures):
        return "steps/s"
    return None
