"""The few figures a reader wants before any table: steady throughput, the
steady step, how busy the device was, the top finding and how the run ended.
Every renderer shows them with the same text (HTML as cards, Markdown and the
terminal as one list), taken from the same report fields as the tables."""

from __future__ import annotations

from fastenough.render.units import fmt_ns, fmt_share
from fastenough.render.view.devices import device_busy, no_device_line
from fastenough.render.view.model import Figure, FindingView
from fastenough.render.view.steps import steady_rates
from fastenough.report.model import Report


def key_figures(report: Report, findings: list[FindingView]) -> list[Figure]:
    figures = []
    steps = report.steps
    rates = steady_rates(report)
    if rates:
        figures.append(Figure("throughput", "steady throughput", rates[0],
                              " · ".join(rates[1:])))
    median = steps.steady_median_ns if steps.steady_count else None
    if median is not None:
        figures.append(Figure(
            "step", "steady step (median)", fmt_ns(median),
            f"p10 {fmt_ns(steps.steady_p10_ns)} · p90 {fmt_ns(steps.steady_p90_ns)}"
            f" · {steps.steady_count} steps"))
    elif report.run is not None or report.inputs:
        figures.append(Figure("step", "steady step", "none found",
                              "no steady step was measured", alert=True))
    busy, where = device_busy(report)
    if busy is not None:
        figures.append(Figure("busy", "device busy", fmt_share(busy), where))
    elif no_device_line(report) or report.run is not None:
        figures.append(Figure("busy", "device busy", "no device",
                              "the run used no GPU/NPU that fastenough saw"))
    if findings:
        top = findings[0]
        figures.append(Figure("finding", "top finding", top.code,
                              f"{top.verdict}; saving {top.saving}"))
    else:
        figures.append(Figure("finding", "top finding", "none",
                              "no avoidable waste detected"))
    run = report.run
    if run is not None:
        if run.signal:
            value, alert = f"signal {run.signal}", True
        else:
            value, alert = f"exit {run.exit_status}", run.exit_status != 0
        figures.append(Figure("run", "command", value,
                              f"after {fmt_ns(run.wall_ns)}" if run.wall_ns else "",
                              alert=alert))
    return figures
