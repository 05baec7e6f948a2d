"""Sampled series over time (device utilisation, power, memory; host CPU and
RSS) from samples.csv, drawn over bands that mark the phases of the run, so a
reader sees what the device did in each phase."""

from __future__ import annotations

import statistics

from fastenough.render.html import svg, timeline
from fastenough.render.run_files import Samples
from fastenough.render.units import fmt_bytes
from fastenough.render.view.model import Timeline

WIDTH, LEFT, RIGHT, TOP, PLOT_H = 960, 70, 20, 24, 150
SERIES_COLORS = ("#2f80ed", "#eb5757", "#27ae60", "#f2994a", "#9b51e0", "#00a3a3",
                 "#56ccf2", "#bb6bd9")
SAMPLE_DOTS_MAX = 60
MAX_LINES = 8  # more devices: their mean and minimum instead of one line each


def _bands(t: Timeline, x: svg.Scale, t0: int, top: float, height: float) -> list[str]:
    """Light bands for the first rank's phases, with their names on top."""
    rows = [(p, d) for p, d in timeline.phase_rows(t) if timeline.auto(d)]
    if not rows:
        return []
    first = min((p.rank for p, _ in rows), key=lambda r: (r is None, r))
    colors = timeline.palette(t)
    out = []
    for p, _ in rows:
        if p.rank != first or not p.start_ns or not p.end_ns:
            continue
        a, b = x((p.start_ns - t0) / 1e9), x((p.end_ns - t0) / 1e9)
        name = p.name
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


def _byte_unit(hi: float) -> tuple[float, str]:
    for div, unit in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if hi >= div:
            return div, unit
    return 1, "B"


def line_chart(t: Timeline, uid: str, title: str, axis_title: str,
               lines: list[tuple[str, list[tuple[int, float]]]], unit: str,
               y_max: float | None = None, limit: float | None = None) -> str | None:
    """Lines over time; unit "%", "W" or "bytes" (drawn in the largest binary unit)."""
    lines = [(name, pts) for name, pts in _merge(lines) if pts]
    if not lines:
        return None
    span = timeline.time_span(t)
    t_lo = min(p[0] for _, pts in lines for p in pts)
    t_hi = max(p[0] for _, pts in lines for p in pts)
    t0, t1 = span if span else (t_lo, t_hi)
    t0, t1 = min(t0, t_lo), max(t1, t_hi)
    if t1 <= t0:
        t1 = t0 + 1
    hi = max(max(v for _, pts in lines for _, v in pts), limit or 0)
    div = 1.0
    if unit == "bytes":
        div, unit = _byte_unit(hi)
    label = (lambda v: f"{v:g} {unit}") if unit != "%" else (lambda v: f"{v:g}%")
    # A fixed top (100% utilisation) unless a value exceeds it.
    y_hi = y_max / div if y_max is not None and y_max >= hi else svg.nice_max(hi / div)
    multi = len(lines) > 1
    height = TOP + PLOT_H + 44 + (22 if multi else 0)
    x = svg.Scale(0, (t1 - t0) / 1e9, LEFT, WIDTH - RIGHT)
    y = svg.Scale(0, y_hi, TOP + PLOT_H, TOP)
    peak_name, peak = max(((name, max(v for _, v in pts)) for name, pts in lines),
                          key=lambda t: t[1])
    peak_text = fmt_bytes(peak) if div != 1 else label(round(peak, 1))
    desc = (f"{title} over {((t1 - t0) / 1e9):.1f} s"
            + (f", {len(lines)} series" if multi else "")
            + f"; highest {peak_text}" + (f" ({peak_name})" if multi else "")
            + (f"; capacity {fmt_bytes(limit)}" if limit and div != 1 else "") + ".")
    out = [svg.svg_open(WIDTH, height, title, desc, uid)]
    out += _bands(t, x, t0, TOP, PLOT_H)
    out.append(svg.y_axis(y, svg.ticks(0, y_hi, 4), LEFT, label, grid_right=WIDTH - RIGHT,
                          title=axis_title + (f" ({unit})" if div != 1 else "")))
    out.append(svg.x_axis(x, svg.ticks(0, (t1 - t0) / 1e9, 8), TOP + PLOT_H,
                          timeline.seconds_label, title="seconds since the command started"))
    if limit:
        out.append(svg.line(LEFT, y(limit / div), WIDTH - RIGHT, y(limit / div), "limit"))
        out.append(svg.text(WIDTH - RIGHT - 4, y(limit / div) - 4,
                            f"capacity {fmt_bytes(limit)}", "limit-label", "end"))
    lx = LEFT
    for i, (name, pts) in enumerate(lines):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        pts = svg.downsample(pts)
        xy = [(x((t - t0) / 1e9), y(v / div)) for t, v in pts]
        out.append(svg.polyline(xy, color))
        if len(xy) <= SAMPLE_DOTS_MAX:
            # Few samples: show where they are, so that a line is not read as continuous.
            out += [f'<circle cx="{svg.fmt_coord(a)}" cy="{svg.fmt_coord(b)}" r="2.5" '
                    f'fill="{color}"/>' for a, b in xy]
        if multi:
            ly = height - 8
            out.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 18}" y2="{ly - 4}" '
                       f'class="legend-swatch" stroke="{color}"/>')
            out.append(svg.text(lx + 24, ly, name, "legend"))
            lx += 40 + 7 * len(name)
    out.append("</svg>")
    return "".join(out)


def sample_charts(t: Timeline, samples: Samples, multi_rank: bool) -> list[tuple[str, str]]:
    """(heading, svg) for every series the run has; `t`: the phases
    and the run's start and end (ReportView.charts.timeline); `multi_rank`: several
    ranks share the host series."""
    charts = []
    devices = samples.devices
    wanted = []
    if devices:
        total = max((d.mem_total or 0 for d in devices), default=0) or None
        wanted += [
            ("Device utilisation", "util", "utilisation", "%", 100.0, None,
             [(d.label, d.util_pct) for d in devices]),
            ("Device memory used", "devmem", "memory", "bytes", None, total,
             [(d.label, d.mem_used) for d in devices]),
            ("Device power", "power", "power", "W", None, None,
             [(d.label, d.power_w) for d in devices]),
        ]
    rss_name = "process tree" + (", all ranks" if multi_rank else "")
    wanted += [
        ("Host CPU of the process tree", "cpu", "CPU, % of one core", "%", None, None,
         [("process tree", samples.cpu_pct)]),
        ("Host memory (RSS) of the process tree", "rss", "RSS", "bytes", None, None,
         [(rss_name, samples.rss)]),
    ]
    for heading, uid, axis, unit, y_max, limit, lines in wanted:
        c = line_chart(t, uid, heading, axis, lines, unit, y_max=y_max, limit=limit)
        if c:
            charts.append((heading, c))
    return charts

