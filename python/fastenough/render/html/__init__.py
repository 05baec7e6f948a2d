"""The HTML report: one self-contained file (report.html in every run
directory, `fastenough report --html`). Its sections and figures are the
terminal and Markdown reports' (render/sections.py, summary.py, record.py);
the charts are inline SVG drawn by the modules beside this one."""

from __future__ import annotations

import shlex
from pathlib import Path

from fastenough import __version__
from fastenough.render import measurement, record, run_files, sections, summary
from fastenough.render.html import device_split, distribution, findings, page, series, timeline
from fastenough.render.html.svg import esc


def _header(report: dict) -> tuple[str, str]:
    run = report.get("run")
    meta = report.get("meta") or {}
    if run:
        command = run.get("command") or []
        command = shlex.join(command) if isinstance(command, list) else str(command)
        started = record._utc(meta.get("start_wall_ns"))
        sub = " · ".join(x for x in (f"host {meta['host']}" if meta.get("host") else "",
                                     f"started {started}" if started else "") if x)
        title = f"fastenough report: {command}"
        head = ('<h1><span class="brand">fastenough</span> report</h1>'
                f'<code class="command">{esc(command)}</code>'
                + (f'<p class="sub">{esc(sub)}</p>' if sub else ""))
    else:
        inputs = report.get("inputs") or []
        names = ", ".join(Path(i.get("path", "?")).name for i in inputs[:4])
        if len(inputs) > 4:
            names += f" and {len(inputs) - 4} more"
        title = f"fastenough report: {names}"
        head = ('<h1><span class="brand">fastenough</span> report</h1>'
                f'<p class="sub">profiler trace{"s" if len(inputs) != 1 else ""}: '
                f"{esc(names)}</p>")
    gaps = measurement.measurement_lines(report)
    if gaps:
        items = "".join(f"<li>{esc(g[2:] if g.startswith('- ') else g)}</li>" for g in gaps[1:])
        head += (f'<div class="banner incomplete" role="alert"><strong>{esc(gaps[0])}</strong>'
                 f"<ul>{items}</ul></div>")
    elif report.get("measurement"):
        head += ('<div class="banner complete"><strong>Measurement complete.</strong>'
                 "Every source ran and the loop reached steady steps.</div>")
    cards = []
    for f in summary.key_figures(report):
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


def _timeline_section(report: dict) -> str | None:
    parts = []
    svg_text = timeline.timeline_svg(report)
    if svg_text:
        parts.append(svg_text + _legend(timeline.legend(report)))
    t = sections.phases_table(report)
    if t:
        parts.append(page.table_html(t))
    return "".join(parts) or None


def _over_time_section(report: dict, samples: run_files.Samples | None) -> str | None:
    if samples is None or samples.empty():
        return None
    charts = series.sample_charts(report, samples)
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


def _steps_section(report: dict, run_dir: Path | None) -> str | None:
    lines = sections.steps_lines(report)
    if run_dir is not None:
        durations, rank = run_files.steady_step_durations(run_dir)
    else:
        durations, rank = run_files.trace_step_durations(report)
    steps = report.get("steps") or {}
    marks = {"p10": steps.get("steady_p10_ns"), "median": steps.get("steady_median_ns"),
             "p90": steps.get("steady_p90_ns")}
    marks = {k: (v / 1e6 if v else None) for k, v in marks.items()}
    subject = f"rank {rank}" if rank is not None else "the run"
    chart = distribution.distribution_svg(durations, marks, subject)
    if not lines and not chart:
        return None
    parts = []
    if chart:
        parts.append(chart)
    if lines:
        parts.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in lines) + "</ul>")
    cost = measurement.tool_cost_line(report)
    if cost:
        parts.append(f'<p class="note">{esc(cost)}</p>')
    return "".join(parts)


def _device_section(report: dict) -> str | None:
    no_device = sections.no_device_line(report)
    chart = device_split.split_svg(report)
    parts = [chart] if chart else []
    for make in (sections.devices_table, sections.idle_table):
        t = make(report)
        if t:
            parts.append(page.table_html(t))
    if no_device:
        parts.append(f'<p class="note">{esc(no_device[0].upper() + no_device[1:])}.</p>')
    return "".join(parts) or None


def _top_section(report: dict) -> str | None:
    parts = []
    t = sections.top_kernels_table(report)
    if t:
        shares = [k.get("share_of_busy") for k in (report.get("top_kernels") or [])
                  [:sections.TOP_N]]
        parts.append(page.table_html(t, bars={4: shares}))
    t = sections.top_ops_table(report)
    if t:
        ops = (report.get("top_ops") or [])[:sections.TOP_N]
        top = max((o.get("total_ns") or 0 for o in ops), default=0) or 1
        parts.append(page.table_html(t, bars={2: [(o.get("total_ns") or 0) / top
                                                  for o in ops]}))
    return "".join(parts) or None


def _record_section(report: dict) -> str | None:
    parts = []
    t = record.record_table(report)
    if t:
        parts.append(page.table_html(t, cls="record", heading=False))
    for make in (sections.records_table, sections.inputs_table, sections.counters_table):
        t = make(report)
        if t:
            parts.append(page.table_html(t))
    quirks = sections.counters_line(report)
    if quirks:
        parts.append(f'<p class="note">{esc(quirks)}</p>')
    return "".join(parts) or None


def report_to_html(report: dict, run_dir: str | Path | None = None) -> str:
    """The page for `report`; `run_dir` (a `fastenough run` directory) adds the charts
    drawn from its samples.csv and steps.jsonl."""
    run_dir = Path(run_dir) if run_dir else None
    samples = run_files.read_samples(run_dir) if run_dir else None
    title, header = _header(report)
    built = [
        ("findings", "Findings", findings.findings_html(report)),
        ("timeline", "Where the time went", _timeline_section(report)),
        ("over-time", "Device and host over time", _over_time_section(report, samples)),
        ("steps", "Steady steps", _steps_section(report, run_dir)),
        ("device", "Device time", _device_section(report)),
        ("top", "Top kernels and ops", _top_section(report)),
        ("record", "Reproducibility record", _record_section(report)),
    ]
    shown = [(a, t, b) for a, t, b in built if b]
    body = "".join(page.section(a, t, b) for a, t, b in shown)
    where = ""
    if report.get("run", {}) and report["run"].get("run_dir"):
        where = f" · run directory <code>{esc(report['run']['run_dir'])}</code>"
    footer = (f"fastenough {esc(__version__)} · report schema "
              f"{esc(report.get('schema', '?'))}{where} · every figure is in report.json")
    return page.document(title, header, [(a, t) for a, t, _ in shown], body, footer)
