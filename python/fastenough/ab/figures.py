"""What one run's report says of its speed, its start and its memory."""

from __future__ import annotations

from dataclasses import dataclass

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


def figures_of(report: dict) -> Figures:
    steps = report.get("steps") or {}
    first_rank = [p for p in report.get("phases") or [] if p.get("rank") in (0, None)]
    cold = [p.get("host_ns") or 0 for p in first_rank if p.get("name") in COLD_PHASES]
    details = (report.get("run_details") or {}).get("phases") or []
    rss = [d.get("rss_max") for d in details if d.get("rss_max")]
    device = [p.get(k) for p in report.get("phases") or []
              for k in ("alloc_peak", "mem_used_max") if p.get(k)]
    return Figures(
        steps_per_s=steps.get("steady_steps_per_s"),
        items_per_s=steps.get("items_per_s"),
        step_median_ns=steps.get("steady_median_ns"),
        steady_steps=int(steps.get("steady_count") or 0),
        cold_start_ns=sum(cold) if cold else None,
        wall_ns=(report.get("run") or {}).get("wall_ns"),
        peak_rss_bytes=max(rss) if rss else None,
        peak_device_bytes=max(device) if device else None,
        measurement=(report.get("measurement") or {}).get("status", "blind"),
    )


def common_unit(all_figures: list[Figures]) -> str | None:
    """items/s when every run counted items (comparable across batch sizes), else
    steps/s when every run has steady steps, else None (nothing to compare)."""
    if all_figures and all(f.items_per_s for f in all_figures):
        return "items/s"
    if all_figures and all(f.steps_per_s for f in all_figures):
        return "steps/s"
    return None
