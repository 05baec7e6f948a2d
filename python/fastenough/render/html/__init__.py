"""The HTML report: one self-contained file (report.html in every run
directory, `fastenough report --html`). It formats the same view as the
terminal and Markdown reports (render/view/: figures, findings, tables, lines);
the charts are inline SVG drawn by the modules beside this one from the
view's series (ReportView.charts)."""

from __future__ import annotations

from pathlib import Path

from fastenough import __version__
from fastenough.render.html import (
    device_split,
    distribution,
    findings,
    page,
    roofline,
    series,
    step_series,
    timeline,
)
from fastenough.render.html.svg import esc
from fastenough.render.view.build import build_view
from fastenough.render.view.model import ReportView
from fastenough.report.model import Report


def _header(view: ReportView) -> tuple[str, str]:
    run = view.run
    if run:
        command = run.command
        sub = " · ".join(x for x in (f"host {run.host}" if run.host else "",
                                     f"started {run.started}" if run.started else "",
                                     run.in_job or "") if x)
        title = f"fastenough report: {command}"
        head = ('<h1><span class="brand">fastenough</span> report</h1>'
                f'<code class="command">{esc(command)}</code>'
                + (f'<p class="sub">{esc(sub)}</p>' if sub else ""))
    else:
        names = ", ".join(view.trace_names)
        if view.trace_count > 4:
            names += f" and {view.trace_count - 4} more"
        title = f"fastenough report: {names}"
        head = ('<h1><span class="brand">fastenough</span> report</h1>'
                f'<p class="sub">profiler trace{"s" if view.trace_count != 1 else ""}: '
                f"{esc(names)}</p>")
    m = view.measurement
    if m.headline:
        items = "".join(f"<li>{esc(r)}</li>" for r in m.reasons)
        head += (f'<div class="banner incomplete" role="alert"><strong>{esc(m.headline)}</strong>'
                 f"<ul>{items}</ul></div>")
    elif m.recorded:
        head += ('<div class="banner complete"><strong>Measurement complete.</strong>'
                 "Every source ran and the loop reached steady steps.</div>")
    cards = []
    for f in view.figures:
        cards.append(f'<div class="card{" alert" if f.alert else ""}" data-key="{esc(f.key)}">'
                     f'<div class="label">{esc(f.label)}</div>'
                     f'<div class="value{" code" if f.key == "finding" else ""}">'
                     f"{esc(f.value)}</div>"
                     f'<div class="detail">{esc(f.detail)}</div></div>')
    head += f'<div class="cards">{"".join(cards)}</div>'
    return title, head


def _legend(items: list[tuple[str, str, str]]) -> str:
    spans = "".join(f'<span><span class="sw" style="background:{esc(c)}"></span>{esc(n)} '
                    f"{esc(t)}</span>" for c, n, t in items)
    return f'<div class="legend-row">{spans}</div>'


def _timeline_section(view: ReportView) -> str | None:
    parts = []
    svg_text = timeline.timeline_svg(view.charts.timeline)
    if svg_text:
        parts.append(svg_text + _legend(timeline.legend(view.charts.timeline)))
    if view.phases:
        parts.append(page.table_html(view.phases))
    return "".join(parts) or None


def _over_time_section(view: ReportView) -> str | None:
    samples = view.charts.samples
    if samples is None or samples.empty():
        return None
    charts = series.sample_charts(view.charts.timeline, samples, view.charts.multi_rank)
    if not charts:
        return None
    parts = []
    if not samples.devices:
        parts.append('<p class="note">No device was sampled (a CPU run, or no NVML / npu-smi '
                     "on this machine): host series only.</p>")
    for heading, chart in charts:
        parts.append(f"<h3>{esc(heading)}</h3>{chart}")
    parts.append('<p class="note">Shaded bands: the phases of the run (first rank). Sampled '
                 "at the rate in the record below; a spike shorter than a sample is not "
                 "seen.</p>")
    return "".join(parts)


def _steps_section(view: ReportView) -> str | None:
    c = view.charts
    subject = f"rank {c.step_rank}" if c.step_rank is not None else "the run"
    chart = distribution.distribution_svg(c.step_durations, c.step_marks, subject)
    # Over the run too (a run's steps.jsonl; a trace has a few profiled steps
    # only): a drift is a line that rises, not only a wide histogram.
    over_run = step_series.series_svg(c.step_durations, subject) if view.run else None
    if not view.steps and not chart:
        return None
    parts = []
    if chart:
        parts.append(chart)
    if over_run:
        parts.append(over_run)
    if view.steps:
        parts.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in view.steps) + "</ul>")
    cost = view.measurement.tool_cost
    if cost:
        parts.append(f'<p class="note">{esc(cost)}</p>')
    return "".join(parts)


def _device_section(view: ReportView) -> str | None:
    chart = device_split.split_svg(view.charts.device_rows)
    parts = [chart] if chart else []
    for t in (view.devices, view.idle):
        if t:
            parts.append(page.table_html(t))
    if view.no_device:
        parts.append(f'<p class="note">{esc(view.no_device[0].upper() + view.no_device[1:])}.</p>')
    return "".join(parts) or None


def _top_section(view: ReportView) -> str | None:
    parts = []
    if view.top_kernels:
        parts.append(page.table_html(view.top_kernels, bars={4: view.charts.kernel_shares}))
    if view.top_ops:
        parts.append(page.table_html(view.top_ops, bars={2: view.charts.op_shares}))
    return "".join(parts) or None


def _roofline_section(view: ReportView) -> str | None:
    if view.roofline is None:
        return None
    parts = []
    chart = roofline.roofline_svg(view.roofline_points)
    if chart:
        parts.append(chart)
        parts.append('<p class="note">Each point is an op at its shapes on one rank: across, '
                     "its FLOPs per byte; up, the FLOP/s it reached; its area, its device "
                     "time. The lines are the roofs of the peaks it was held to (memory "
                     "bandwidth up to the ridge, then compute): a point far below its roof "
                     "ran far from what the device can do. Ops with no FLOPs (copies, "
                     "gathers) have no place on these axes: the table lists them "
                     "(docs/roofline.md).</p>")
    parts.append(page.table_html(view.roofline, heading=False))
    if view.roofline_worst:
        parts.append(page.table_html(view.roofline_worst))
    return "".join(parts)


def _record_section(view: ReportView) -> str | None:
    parts = []
    if view.record:
        parts.append(page.table_html(view.record, cls="record", heading=False))
    for t in (view.recorded_outputs, view.inputs, view.counters):
        if t:
            parts.append(page.table_html(t))
    if view.quirks:
        parts.append(f'<p class="note">{esc(view.quirks)}</p>')
    return "".join(parts) or None


def report_to_html(report: Report, run_dir: str | Path | None = None) -> str:
    """The page for a typed Report; `run_dir` (a `fastenough run` directory) adds the
    charts drawn from its samples.csv and steps.jsonl. Where the view is built
    already, view_to_html."""
    return view_to_html(build_view(report, run_dir))


def view_to_html(view: ReportView) -> str:
    title, header = _header(view)
    built = [
        ("findings", "Findings", findings.findings_html(view)),
        ("timeline", "Where the time went", _timeline_section(view)),
        ("over-time", "Device and host over time", _over_time_section(view)),
        ("steps", "Steady steps", _steps_section(view)),
        ("device", "Device time", _device_section(view)),
        ("top", "Top kernels and ops", _top_section(view)),
        ("roofline", "How close to the roof", _roofline_section(view)),
        ("record", "Reproducibility record", _record_section(view)),
    ]
    shown = [(a, t, b) for a, t, b in built if b]
    body = "".join(page.section(a, t, b) for a, t, b in shown)
    where = ""
    if view.run and view.run.run_dir:
        where = f" · run directory <code>{esc(view.run.run_dir)}</code>"
    footer = (f"fastenough {esc(__version__)} · report schema "
              f"{esc(view.schema)}{where} · every figure is in report.json")
    return page.document(title, header, [(a, t) for a, t, _ in shown], body, footer)
