"""Small helpers shared by the SVG charts: escaping, scales, tick values and
the accessible <svg> wrapper (role="img", <title> and <desc> read by screen
readers and shown as tooltips). Coordinates are in viewBox units; the page's
CSS scales every chart to the width of its column."""

from __future__ import annotations

import html
import math
from collections.abc import Callable

from fastenough.visible import visible

FONT = 12  # px in viewBox units; charts are drawn 960 wide and scale down


def esc(text) -> str:
    """Text for HTML (element content or a quoted attribute), control characters
    shown as escapes (render/escape.py), as in every other renderer."""
    return html.escape(visible(text, keep_newlines=True), quote=True)


def fmt_coord(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


class Scale:
    """Linear (or log10) map from data values to pixels."""

    def __init__(self, lo: float, hi: float, px_lo: float, px_hi: float, log: bool = False):
        if log:
            lo, hi = math.log10(max(lo, 1e-12)), math.log10(max(hi, 1e-12))
        if hi <= lo:
            hi = lo + 1.0
        self.lo, self.hi, self.px_lo, self.px_hi, self.log = lo, hi, px_lo, px_hi, log

    def __call__(self, v: float) -> float:
        if self.log:
            v = math.log10(max(v, 1e-12))
        v = min(max(v, self.lo), self.hi)
        return self.px_lo + (v - self.lo) / (self.hi - self.lo) * (self.px_hi - self.px_lo)


def nice_step(span: float, target: int = 5) -> float:
    if span <= 0:
        return 1.0
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    step = nice_step(hi - lo, target)
    first = math.ceil(lo / step - 1e-9) * step
    out = []
    v = first
    while v <= hi + step * 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def nice_max(hi: float, target: int = 4) -> float:
    """The first tick at or above hi: an axis that holds every value."""
    if hi <= 0:
        return 1.0
    step = nice_step(hi, target)
    return math.ceil(hi / step - 1e-9) * step


def log_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks between lo and hi (both > 0)."""
    out = []
    e = math.floor(math.log10(max(lo, 1e-12)))
    while 10 ** e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if lo * 0.9999 <= v <= hi * 1.0001:
                out.append(v)
        e += 1
    if len(out) > 8:
        out = [v for v in out if round(v / 10 ** math.floor(math.log10(v)), 6) in (1, 5)]
    return out


def svg_open(width: int, height: int, title: str, desc: str, uid: str) -> str:
    return (f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
            f'aria-labelledby="{uid}-t {uid}-d" xmlns="http://www.w3.org/2000/svg">'
            f'<title id="{uid}-t">{esc(title)}</title><desc id="{uid}-d">{esc(desc)}</desc>')


def text(x: float, y: float, s: str, cls: str = "", anchor: str = "start") -> str:
    c = f' class="{cls}"' if cls else ""
    a = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{fmt_coord(x)}" y="{fmt_coord(y)}"{c}{a}>{esc(s)}</text>'


def rect(x: float, y: float, w: float, h: float, fill: str, tip: str | None = None,
         cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    body = f"<title>{esc(tip)}</title>" if tip else ""
    return (f'<rect x="{fmt_coord(x)}" y="{fmt_coord(y)}" width="{fmt_coord(max(w, 0))}" '
            f'height="{fmt_coord(max(h, 0))}" fill="{fill}"{c}>{body}</rect>')


def line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return (f'<line x1="{fmt_coord(x1)}" y1="{fmt_coord(y1)}" x2="{fmt_coord(x2)}" '
            f'y2="{fmt_coord(y2)}" class="{cls}"/>')


def x_axis(scale: Scale, values: list[float], y: float, label: Callable[[float], str],
           grid_top: float | None = None, title: str = "") -> str:
    out = [line(scale.px_lo, y, scale.px_hi, y, "axis")]
    for v in values:
        x = scale(v)
        if grid_top is not None:
            out.append(line(x, grid_top, x, y, "grid"))
        out.append(line(x, y, x, y + 4, "axis"))
        out.append(text(x, y + 16, label(v), "tick", "middle"))
    if title:
        out.append(text((scale.px_lo + scale.px_hi) / 2, y + 32, title, "axis-title", "middle"))
    return "".join(out)


def y_axis(scale: Scale, values: list[float], x: float, label: Callable[[float], str],
           grid_right: float | None = None, title: str = "") -> str:
    out = [line(x, scale.px_lo, x, scale.px_hi, "axis")]
    for v in values:
        y = scale(v)
        if grid_right is not None:
            out.append(line(x, y, grid_right, y, "grid"))
        out.append(text(x - 6, y + 4, label(v), "tick", "end"))
    if title:
        # Above the axis, not rotated beside it: tick labels with units can be wide.
        out.append(text(x - 60, scale.px_hi - 10, title, "axis-title"))
    return "".join(out)


def polyline(points: list[tuple[float, float]], color: str, cls: str = "series") -> str:
    pts = " ".join(f"{fmt_coord(x)},{fmt_coord(y)}" for x, y in points)
    return f'<polyline points="{pts}" class="{cls}" stroke="{color}"/>'


def downsample(points: list[tuple[int, float]], n: int = 480,
               how: Callable[[list[float]], float] = max) -> list[tuple[int, float]]:
    """At most n points: buckets of consecutive samples, each kept as `how` of its values
    (max keeps memory peaks visible)."""
    if len(points) <= n:
        return points
    size = len(points) / n
    out = []
    for i in range(n):
        bucket = points[int(i * size):int((i + 1) * size)]
        if bucket:
            out.append((bucket[len(bucket) // 2][0], how([v for _, v in bucket])))
    return out
