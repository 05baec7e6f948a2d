"""Step time over the run: each steady step's time against its place in the
run, with the median of the first and of the last third drawn across their
thirds. A loop that slows down as it runs (issue 37, item 7: 0.34 s a step
growing to 1.35 s) is a rising line here, where the histogram beside it only
shows a wide spread."""

from __future__ import annotations

import statistics

from fastenough.render.html import svg
from fastenough.render.html.distribution import linear_axis_labels
from fastenough.render.units import fmt_ns

WIDTH, LEFT, RIGHT, TOP, PLOT_H = 960, 70, 20, 30, 170
MIN_STEPS = 3  # fewer: nothing to see over time
POINTS = 480  # at most this many points drawn (buckets of consecutive steps, their median)


def thirds(durations_ns: list[int]) -> tuple[float, float] | None:
    """Median (ns) of the first and of the last third of the steps, in run order."""
    n = len(durations_ns) // 3
    if n < 1:
        return None
    return statistics.median(durations_ns[:n]), statistics.median(durations_ns[-n:])


def series_svg(durations_ns: list[int], subject: str, uid: str = "step-series") -> str | None:
    values = [d for d in durations_ns if d > 0]
    if len(values) < MIN_STEPS:
        return None
    ms = [(i + 1, v / 1e6) for i, v in enumerate(values)]
    drawn = svg.downsample(ms, POINTS, how=statistics.median)
    hi = max(v for _, v in ms)
    y_top = svg.nice_max(hi, 4) or 1.0
    y_ticks = svg.ticks(0, y_top, 4)
    y = svg.Scale(0, y_top, TOP + PLOT_H, TOP)
    x = svg.Scale(1, max(len(values), 2), LEFT, WIDTH - RIGHT)
    x_ticks = [t for t in svg.ticks(1, len(values), 8) if t == int(t) and t >= 1]
    split = thirds(values)
    desc = f"Time of each of the {len(values)} steady steps of {subject}, in the order they ran"
    if split:
        desc += (f": median {fmt_ns(split[0])} over the first third, "
                 f"{fmt_ns(split[1])} over the last third")
    out = [svg.svg_open(WIDTH, TOP + PLOT_H + 50, "Step time over the run", desc + ".", uid)]
    out.append(svg.y_axis(y, y_ticks, LEFT, linear_axis_labels(y_ticks), grid_right=WIDTH - RIGHT,
                          title="step time"))
    out.append(svg.polyline([(x(i), y(v)) for i, v in drawn], "#2f80ed", "series step-series"))
    if split:
        n = len(values)
        for (a, b), med, name in (((1, n // 3), split[0], "first third"),
                                  ((n - n // 3 + 1, n), split[1], "last third")):
            out.append(svg.line(x(a), y(med / 1e6), x(b), y(med / 1e6), "mark-median third"))
            out.append(svg.text((x(a) + x(b)) / 2, y(med / 1e6) - 6,
                                f"{name}: median {fmt_ns(med)}", "mark-label", "middle"))
    out.append(svg.x_axis(x, x_ticks, TOP + PLOT_H, lambda v: f"{int(v)}",
                          title="steady step, in the order it ran"))
    out.append("</svg>")
    return "".join(out)
