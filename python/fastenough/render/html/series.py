"""Sampled series over time (device utilisation, power, memory; host CPU and
RSS) from samples.csv, drawn over bands that mark the phases of the run, so a
reader sees what the device did in each phase."""

from __future__ import annotations

import statistics

from fastenough.render import sections
from fastenough.render.html import svg, timeline
from fastenough.render.run_files import Samples
from fastenough.render.units import fmt_bytes

WIDTH, LEFT, RIGHT, TOP, PLOT_H = 960, 70, 20, 24, 150
SERIES_COLORS = ("#2f80ed", "#eb5757", "#27ae60", "#f2994a", "#9b51e0", "#00a3a3",
                 "#56ccf2", "#bb6bd9")
MAX_LINES = 8  # more devices: their mean and minimum instead of one line each


def _bytes_tick(v: float) -> str:
    return fmt_bytes(v).replace(".0 ", " ")


def _bands(report: dict, x: svg.Scale, t0: int, top: float, height: float) -> list[str]:
    """Light bands for the first rank's phases, with their names on top."""
    rows = [(p, d) for p, d in timeline.phase_rows(report) if d.get("auto", True)]
    if not rows:
        return []
    first = min((p.get("rank") for p, _ in rows), key=lambda r: (r is None, r))
    colors = timeline.palette(report)
    out = []
    for p, _ in rows:
        if p.get("rank") != first or not p.get("start_ns") or not p.get("end_ns"):
            continue
        a, b = x((p["start_ns"] - t0) / 1e9), x((p["end_ns"] - t0) / 1e9)
        name = p.get("name", "?")
        out.append(svg.rect(a, top, max(b - a, 1), height, colors.get(name, "#999"),
                            f"{name} phase", "band"))
        if b - a > 7 * len(name) + 6:
            out.append(svg.text(a + 4, top + 11, name, "band-label"))
    return out


def _merge(lines: list[tuple[str, list[tuple[int, float]]]]
           ) -> list[tuple[str, list[tuple[int, float]]]]:
    """Many devices: their mean and minimum per sample time."""
    if len(lines) <= MAX_LINES:
        return lines
    by_t: dict[int, list[float]] = {}
    for _, pts in lines:
        for t, v in pts:
            by_t.setdefault(t, []).append(v)
    ts = sorted(by_t)
    return [(f"mean of {len(lines)} devices", [(t, statistics.fmean(by_t[t])) for t in ts]),
            (f"lowest of {len(lines)} devices", [(t, min(by_t[t])) for t in ts])]


def line_chart(report: dict, uid: str, title: str, unit_title: str,
               lines: list[tuple[str, list[tuple[int, float]]]], y_max: float | None,
               y_label, how=max, limit: float | None = None) -> str | None:
    lines = [(name, pts) for name, pts in _merge(lines) if pts]
    if not lines:
        return None
    span = timeline.time_span(report)
    t_lo = min(p[0] for _, pts in lines for p in pts)
    t_hi = max(p[0] for _, pts in lines for p in pts)
    t0, t1 = span if span else (t_lo, t_hi)
    t1 = max(t1, t_hi)
    if t1 <= t0:
        t1 = t0 + 1
    hi = max(v for _, pts in lines for _, v in pts)
    if limit:
        hi = max(hi, limit)
    y_hi = y_max if y_max is not None else (svg.ticks(0, hi or 1, 4)[-1] if hi > 0 else 1)
    if y_hi < hi:
        y_hi = svg.ticks(0, hi, 4)[-1]
    legend_h = 20
    height = TOP + PLOT_H + 44 + legend_h
    x = svg.Scale(0, (t1 - t0) / 1e9, LEFT, WIDTH - RIGHT)
    y = svg.Scale(0, y_hi, TOP + PLOT_H, TOP)
    peak = max(((name, max(v for _, v in pts)) for name, pts in lines), key=lambda t: t[1])
    desc = (f"{title} over {((t1 - t0) / 1e9):.1f} s, {len(lines)} series; highest "
            f"{y_label(peak[1])} ({peak[0]}).")
    out = [svg.svg_open(WIDTH, height, title, desc, uid)]
    out += _bands(report, x, t0, TOP, PLOT_H)
    out.append(svg.y_axis(y, svg.ticks(0, y_hi, 4), LEFT, y_label, grid_right=WIDTH - RIGHT,
                          title=unit_title))
    out.append(svg.x_axis(x, svg.ticks(0, (t1 - t0) / 1e9, 8), TOP + PLOT_H,
                          timeline.seconds_label, title="seconds since the command started"))
    if limit:
        out.append(svg.line(LEFT, y(limit), WIDTH - RIGHT, y(limit), "limit"))
        out.append(svg.text(WIDTH - RIGHT - 4, y(limit) - 4, f"capacity {y_label(limit)}",
                            "limit-label", "end"))
    lx = LEFT
    for i, (name, pts) in enumerate(lines):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        pts = svg.downsample(pts, how=how)
        out.append(svg.polyline([(x((t - t0) / 1e9), y(v)) for t, v in pts], color))
        ly = height - 8
        out.append(svg.line(lx, ly - 4, lx + 18, ly - 4, "legend-swatch").replace(
            'class="legend-swatch"', f'class="legend-swatch" stroke="{color}"'))
        out.append(svg.text(lx + 24, ly, name, "legend"))
        lx += 40 + 7 * len(name)
    out.append("</svg>")
    return "".join(out)


def sample_charts(report: dict, samples: Samples) -> list[tuple[str, str]]:
    """(heading, svg) for every series the run has."""
    charts = []
    devices = samples.devices
    pct = lambda v: f"{v:g}%"  # noqa: E731
    watts = lambda v: f"{v:g} W"  # noqa: E731
    if devices:
        c = line_chart(report, "util", "Device utilisation", "utilisation (%)",
                       [(d.label, d.util_pct) for d in devices], 100, pct, how=max)
        if c:
            charts.append(("Device utilisation", c))
        total = max((d.mem_total or 0 for d in devices), default=0) or None
        c = line_chart(report, "devmem", "Device memory used", "memory",
                       [(d.label, d.mem_used) for d in devices], None, _bytes_tick, how=max,
                       limit=total)
        if c:
            charts.append(("Device memory", c))
        c = line_chart(report, "power", "Device power", "power (W)",
                       [(d.label, d.power_w) for d in devices], None, watts, how=max)
        if c:
            charts.append(("Device power", c))
    c = line_chart(report, "cpu", "Host CPU of the process tree", "CPU (% of one core)",
                   [("process tree", samples.cpu_pct)], None, pct, how=max)
    if c:
        charts.append(("Host CPU", c))
    c = line_chart(report, "rss", "Host memory (RSS) of the process tree", "RSS",
                   [("process tree" + (", all ranks" if _multi_rank(report) else ""),
                     samples.rss)], None, _bytes_tick, how=max)
    if c:
        charts.append(("Host memory", c))
    return charts


def _multi_rank(report: dict) -> bool:
    return len({p.get("rank") for p in report.get("phases") or []}) > 1 or \
        len(report.get("devices") or []) > sections.RANK_DETAIL_MAX
