"""The steady step-time distribution: a histogram (a dot per step when there
are few), on a log axis when the steps spread over more than a factor of 20,
with the report's own p10, median and p90 marked."""

from __future__ import annotations

import math

from fastenough.render.html import svg
from fastenough.render.units import fmt_ns

WIDTH, LEFT, RIGHT, TOP, PLOT_H = 960, 70, 20, 44, 170
DOTS_BELOW = 30  # fewer steps than this: one dot per step rather than bars


def _ms_label(v: float) -> str:
    return fmt_ns(v * 1e6).replace(".00 ", " ")


def linear_axis_labels(ticks_ms: list[float]):
    """One unit for every tick of a linear axis, the one of its largest tick,
    with the decimals its step needs: "0 ms, 20 ms, 40 ms", never "0 ns" beside
    ms ticks nor "1.50 ms" beside "2 ms"."""
    top = max(abs(t) for t in ticks_ms) if ticks_ms else 0.0
    for unit, per_ms in (("s", 1e-3), ("ms", 1.0), ("µs", 1e3), ("ns", 1e6)):
        if top * per_ms >= 1 or unit == "ns":
            break
    steps = [b - a for a, b in zip(ticks_ms, ticks_ms[1:], strict=False) if b > a]
    step = min(steps) * per_ms if steps else 1.0
    decimals = 0
    while decimals < 3 and abs(step * 10 ** decimals - round(step * 10 ** decimals)) > 1e-6:
        decimals += 1

    def label(v: float) -> str:
        return f"{v * per_ms:.{decimals}f} {unit}"
    return label


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def distribution_svg(durations_ns: list[int], marks: dict[str, float | None],
                     subject: str, uid: str = "steps") -> str | None:
    values = [d / 1e6 for d in durations_ns if d > 0]
    if not values:
        return None
    lo, hi = min(values), max(values)
    log = hi / lo > 20
    if log:
        x_lo, x_hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        x_ticks = svg.log_ticks(x_lo, x_hi)
    else:
        # Whole tick steps on both sides of the data: no step falls off the axis.
        step = svg.nice_step((hi - lo) or hi or 1, 8)
        x_lo = max(math.floor(lo / step) * step, 0)
        x_hi = math.ceil(hi / step) * step
        if x_hi <= hi:
            x_hi += step
        x_ticks = svg.ticks(x_lo, x_hi, 8)
    x = svg.Scale(x_lo, x_hi, LEFT, WIDTH - RIGHT, log=log)
    height = TOP + PLOT_H + 50
    base = TOP + PLOT_H
    median = marks.get("median")
    desc = (f"{len(values)} steady step{'' if len(values) == 1 else 's'} of {subject}, "
            f"from {_ms_label(lo)} to {_ms_label(hi)}"
            + (f", median {fmt_ns(median * 1e6)}" if median else "")
            + ("; logarithmic time axis" if log else "") + ".")
    out = [svg.svg_open(WIDTH, height, "Steady step-time distribution", desc, uid)]
    if len(values) < DOTS_BELOW:
        # One dot per step, stacked where dots would overlap.
        stacks: dict[int, int] = {}
        r = 6
        for v in sorted(values):
            px = x(v)
            key = round(px / (2 * r))
            n = stacks.get(key, 0)
            stacks[key] = n + 1
            cy = base - r - 2 - n * (2 * r + 1)
            out.append(f'<circle cx="{svg.fmt_coord(px)}" cy="{svg.fmt_coord(cy)}" r="{r}" '
                       f'class="dot"><title>{svg.esc(fmt_ns(v * 1e6))}</title></circle>')
    else:
        nbins = min(60, max(10, int(math.sqrt(len(values)) * 2)))
        lo_t = math.log10(x_lo) if log else x_lo
        hi_t = math.log10(x_hi) if log else x_hi
        width = (hi_t - lo_t) / nbins
        counts = [0] * nbins
        for v in values:
            t = math.log10(v) if log else v
            counts[min(int((t - lo_t) / width), nbins - 1)] += 1
        # The axis ends at a tick at or above the tallest bar: bars of 66 and
        # 63 steps are never both drawn at a 60 line.
        y_top = max(svg.nice_max(max(counts), 4), 1)
        y_ticks = [t for t in svg.ticks(0, y_top, 4) if t == int(t)]
        y = svg.Scale(0, y_top, base, TOP)
        out.append(svg.y_axis(y, y_ticks, LEFT, lambda v: f"{v:g}", grid_right=WIDTH - RIGHT,
                              title="steps"))
        for i, c in enumerate(counts):
            if not c:
                continue
            a, b = lo_t + i * width, lo_t + (i + 1) * width
            if log:
                a, b = 10 ** a, 10 ** b
            xa, xb = x(a), x(b)
            out.append(svg.rect(xa + 0.5, y(c), xb - xa - 1, base - y(c), "#2f80ed",
                                f"{_steps(c)} between {_ms_label(a)} and {_ms_label(b)}", "bar"))
    for name, cls in (("p10", "mark-p"), ("median", "mark-median"), ("p90", "mark-p")):
        v = marks.get(name)
        if v:
            px = x(v)
            # The median's label sits above the p10/p90 labels: close marks stay legible.
            label_y = TOP - 26 if name == "median" else TOP - 8
            out.append(svg.line(px, label_y + 4, px, base, cls))
            label = f"{name} {fmt_ns(v * 1e6)}"
            anchor = {"p10": "end", "median": "middle", "p90": "start"}[name]
            dx = {"p10": -4, "median": 0, "p90": 4}[name]
            # Keep the label inside the plot: flip it to the other side of its mark.
            width = 6.5 * len(label)
            if anchor == "end" and px - width < LEFT:
                anchor, dx = "start", 4
            elif anchor == "start" and px + width > WIDTH - RIGHT:
                anchor, dx = "end", -4
            elif anchor == "middle" and px - width / 2 < LEFT:
                anchor, dx = "start", -2
            elif anchor == "middle" and px + width / 2 > WIDTH - RIGHT:
                anchor, dx = "end", 2
            out.append(svg.text(px + dx, label_y, label, "mark-label", anchor))
    out.append(svg.x_axis(x, x_ticks, base, _ms_label if log else linear_axis_labels(x_ticks),
                          title="step time"
                          + (" (logarithmic)" if log else "")))
    out.append("</svg>")
    return "".join(out)
