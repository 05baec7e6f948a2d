"""The roofline chart of the HTML report (issue 38 item 5): each hot (op, shapes)
of each rank as a point, x its arithmetic intensity (FLOPs per byte), y its
achieved FLOP/s, both log scales, its area by its device time; the roofs of the
peaks the rows were held to as lines (the memory roof's slope up to the ridge,
then the compute roof flat). Inline SVG, nothing external; op names, shapes and
device names are data: text nodes and <title> tooltips, escaped (svg.esc)."""

from __future__ import annotations

import math

from fastenough.render.html import svg
from fastenough.render.units import fmt_ns
from fastenough.render.view.roofline import RoofPoint

WIDTH, HEIGHT = 960, 440
LEFT, RIGHT, TOP, BOTTOM = 110, 30, 24, 70
R_MIN, R_MAX = 3.0, 22.0
LABELLED = 5  # the heaviest points carry their op's name
ROOF_COLORS = ("#eb5757", "#9b51e0", "#27ae60", "#f2994a")


def _si(v: float, unit: str) -> str:
    """1.5e13 -> '15 T' + unit (1-2-5 ticks and tooltips)."""
    for f, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= f:
            return f"{v / f:.3g} {p}{unit}"
    return f"{v:.3g} {unit}"


def _roofs(points: tuple[RoofPoint, ...]) -> list[tuple[str, float, float]]:
    """(name, peak FLOP/s, peak bytes/s) of each distinct peak the points were held to."""
    seen: dict[str, tuple[float, float]] = {}
    for p in points:
        if p.peak and p.peak_flop_per_s and p.peak_bytes_per_s and p.peak not in seen:
            seen[p.peak] = (p.peak_flop_per_s, p.peak_bytes_per_s)
    return [(name, f, b) for name, (f, b) in list(seen.items())[:len(ROOF_COLORS)]]


def _decades(lo: float, hi: float) -> tuple[float, float]:
    return 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))


def roofline_svg(points: tuple[RoofPoint, ...], uid: str = "roofline") -> str | None:
    if not points:
        return None
    roofs = _roofs(points)
    xs = [p.intensity for p in points] + [f / b for _, f, b in roofs]
    x_lo, x_hi = _decades(min(xs) / 2, max(xs) * 2)
    ys = [p.flop_per_s for p in points] + [f for _, f, _ in roofs]
    ys += [min(f, b * x_lo) for _, f, b in roofs]  # where each roof enters the chart
    y_lo, y_hi = _decades(min(ys) / 2, max(ys) * 1.5)
    x = svg.Scale(x_lo, x_hi, LEFT, WIDTH - RIGHT, log=True)
    y = svg.Scale(y_lo, y_hi, HEIGHT - BOTTOM, TOP, log=True)
    legend_h = 18 * len(roofs)
    height = HEIGHT + legend_h
    heaviest = points[0]
    desc = (f"Roofline: {len(points)} op shape(s) by arithmetic intensity and achieved FLOP/s; "
            f"the heaviest, {heaviest.op} (rank {heaviest.rank}), at "
            f"{_si(heaviest.flop_per_s, 'FLOP/s')}, {heaviest.of_roof} of its {heaviest.roof} "
            "roof.")
    out = [svg.svg_open(WIDTH, height, "Achieved FLOP/s against the roofs", desc, uid)]
    out.append(svg.x_axis(x, svg.log_ticks(x_lo, x_hi), HEIGHT - BOTTOM, lambda v: f"{v:g}",
                          grid_top=TOP, title="arithmetic intensity (FLOPs per byte, log)"))
    out.append(svg.y_axis(y, svg.log_ticks(y_lo, y_hi), LEFT, lambda v: _si(v, "FLOP/s"),
                          grid_right=WIDTH - RIGHT, title="achieved (log)"))
    for (_name, flops, bw), color in zip(roofs, ROOF_COLORS, strict=False):
        ridge = flops / bw
        knee = min(max(ridge, x_lo), x_hi)
        pts = [(x_lo, min(flops, bw * x_lo)), (knee, min(flops, bw * knee)),
               (x_hi, min(flops, bw * x_hi))]
        out.append(svg.polyline([(x(a), y(b)) for a, b in pts], color, "series roof"
                                ).replace("/>", ' fill="none" stroke-width="2"/>'))
    biggest = max(p.device_ns for p in points) or 1
    # Heaviest drawn last: on top, and its label readable.
    for i, p in reversed(list(enumerate(points))):
        r = max(R_MIN, R_MAX * math.sqrt(max(p.device_ns, 0) / biggest))
        cx, cy = x(p.intensity), y(p.flop_per_s)
        tip = (f"{p.op} {p.shapes} (rank {p.rank}): {p.intensity:.3g} FLOPs/byte, "
               f"{_si(p.flop_per_s, 'FLOP/s')}, {p.of_roof} of the {p.roof} roof"
               + (f" ({p.peak})" if p.peak else "") + f"; device time {fmt_ns(p.device_ns)}")
        out.append(f'<circle cx="{svg.fmt_coord(cx)}" cy="{svg.fmt_coord(cy)}" '
                   f'r="{svg.fmt_coord(r)}" class="roof-op" fill="#2f80ed" fill-opacity="0.55" '
                   f'stroke="#1c4f94"><title>{svg.esc(tip)}</title>'
                   "</circle>")
        if i < LABELLED:
            out.append(svg.text(cx + r + 3, cy + 4, p.op[:40], "legend"))
    ly = HEIGHT + 4
    for (name, flops, bw), color in zip(roofs, ROOF_COLORS, strict=False):
        out.append(svg.line(LEFT, ly - 4, LEFT + 24, ly - 4, "legend-swatch"
                            ).replace("/>", f' stroke="{color}"/>'))
        out.append(svg.text(LEFT + 30, ly, f"roof of {name}: {_si(flops, 'FLOP/s')}, "
                            f"{_si(bw, 'B/s')} (ridge {flops / bw:.3g} FLOPs/byte)", "legend"))
        ly += 18
    out.append("</svg>")
    return "".join(out)
