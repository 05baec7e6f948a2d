"""The few figures a reader wants before any table: steady throughput, the
steady step, how busy the device was, the top finding and how the run ended.
Every renderer shows them with the same text (HTML as cards, Markdown and the
terminal as one list), taken from the same report fields as the tables."""

from __future__ import annotations

from dataclasses import dataclass

from fastenough.render import sections
from fastenough.render.units import fmt_ns, fmt_share, share


@dataclass
class Figure:
    key: str  # stable: throughput, step, busy, finding, run
    label: str
    value: str
    detail: str = ""
    alert: bool = False  # a figure that needs attention (a crash, nothing measured)


def steady_rates(report: dict) -> list[str]:
    """The headline mode's steady rates, as the Steps section writes them."""
    steps = report.get("steps") or {}
    by_mode = (report.get("run_details") or {}).get("steps_by_mode") or []
    mode = steps.get("mode")
    for m in by_mode:
        if m.get("mode") == mode:
            return sections.rates(m)
    return sections.rates({"steps_per_s": steps.get("steady_steps_per_s"),
                            "items_per_s": steps.get("items_per_s"),
                            "tokens_per_s": steps.get("tokens_per_s"),
                            "real_tokens_per_s": steps.get("real_tokens_per_s")})


def device_busy(report: dict) -> tuple[float | None, str]:
    """Busy share of the device and where it comes from: the profiled window's
    trace (median over devices) when there is one, else the steady phase's samples."""
    devices = report.get("devices") or []
    shares = [share(d.get("busy_ns"), d.get("span_ns")) for d in devices]
    value = sections.median(shares)
    if value is not None:
        where = "profiled window" if report.get("run") else "trace"
        if len(devices) > 1:
            where += f", median of {len(devices)} devices"
        return value, where
    steady = [p.get("device_busy_share") for p in report.get("phases") or []
              if p.get("name") == "steady"]
    value = sections.median(steady)
    return value, "steady phase, sampled utilisation"


def key_figures(report: dict) -> list[Figure]:
    figures = []
    steps = report.get("steps") or {}
    rates = steady_rates(report)
    if rates:
        figures.append(Figure("throughput", "steady throughput", rates[0],
                              " · ".join(rates[1:])))
    median = steps.get("steady_median_ns") if steps.get("steady_count") else None
    if median is not None:
        figures.append(Figure(
            "step", "steady step (median)", fmt_ns(median),
            f"p10 {fmt_ns(steps.get('steady_p10_ns'))} · p90 {fmt_ns(steps.get('steady_p90_ns'))}"
            f" · {steps['steady_count']} steps"))
    elif report.get("run") is not None or report.get("inputs"):
        figures.append(Figure("step", "steady step", "none found",
                              "no steady step was measured", alert=True))
    busy, where = device_busy(report)
    if busy is not None:
        figures.append(Figure("busy", "device busy", fmt_share(busy), where))
    elif sections.no_device_line(report) or report.get("run"):
        figures.append(Figure("busy", "device busy", "no device",
                              "the run used no GPU/NPU that fastenough saw"))
    findings = sections.findings_views(report)
    if findings:
        top = findings[0]
        figures.append(Figure("finding", "top finding", top.code,
                              f"{top.verdict}; saving {top.saving}"))
    else:
        figures.append(Figure("finding", "top finding", "none",
                              "no avoidable waste detected"))
    run = report.get("run")
    if run:
        if run.get("signal"):
            value, alert = f"signal {run['signal']}", True
        else:
            value, alert = f"exit {run.get('exit_status')}", run.get("exit_status") != 0
        figures.append(Figure("run", "command", value,
                              f"after {fmt_ns(run.get('wall_ns'))}" if run.get("wall_ns") else "",
                              alert=alert))
    return figures


def figure_lines(report: dict, skip: tuple[str, ...] = ()) -> list[str]:
    """'steady throughput: 10.03 steps/s · 10.0 items/s · 642 tokens/s' per figure."""
    out = []
    for f in key_figures(report):
        if f.key in skip:
            continue
        out.append(f"{f.label}: {f.value}" + (f" · {f.detail}" if f.detail else ""))
    return out
