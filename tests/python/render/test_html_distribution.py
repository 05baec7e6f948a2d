"""The steady step-time histogram of the HTML report (issue 24, item 3): the
tallest bars are not clipped, the time axis has one unit, counts of one are
"1 step"."""

from __future__ import annotations

import re

from fastenough.render.html.distribution import distribution_svg, linear_axis_labels


def bars(svg: str) -> list[tuple[float, str]]:
    """(height, title) of each bar."""
    out = []
    for m in re.finditer(r'<rect[^>]*height="([\d.]+)"[^>]*>\s*<title>([^<]*)</title>', svg):
        out.append((float(m.group(1)), m.group(2)))
    return out


def tick_labels(svg: str) -> list[str]:
    return re.findall(r'class="tick"[^>]*>([^<]*)<', svg)


def test_the_tallest_bars_keep_their_heights():
    # 66 steps at ~10 ms, 63 at ~20 ms, 1 at ~30 ms: the y axis must reach
    # past 66, so that 66 and 63 get different heights.
    durations = [10_000_000] * 66 + [20_000_000] * 63 + [30_000_000]
    svg = distribution_svg(durations, {"median": 10.0}, "train")
    drawn = {title.split(" ")[0]: h for h, title in bars(svg)}
    assert set(drawn) == {"66", "63", "1"}
    assert drawn["66"] > drawn["63"] > drawn["1"] > 0
    assert abs(drawn["66"] / drawn["63"] - 66 / 63) < 0.01
    assert any(title.startswith("1 step between") for _, title in bars(svg))
    assert not any(title.startswith("1 steps") for _, title in bars(svg))


def test_a_linear_time_axis_speaks_one_unit():
    durations = [1_000_000 + 37_000 * i for i in range(200)]  # 1 to 8.4 ms
    svg = distribution_svg(durations, {}, "eval")
    labels = [t for t in tick_labels(svg) if t.endswith("s")]
    assert labels and all(t.endswith(" ms") for t in labels), labels
    assert "0 ns" not in tick_labels(svg)
    assert linear_axis_labels([0.0, 20.0, 40.0, 60.0])(0.0) == "0 ms"
    assert [linear_axis_labels([0.0, 0.5, 1.0, 1.5])(v) for v in (0.0, 1.5)] == ["0.0 ms", "1.5 ms"]
    assert linear_axis_labels([0.0, 0.02, 0.04])(0.04) == "40 µs"
    assert linear_axis_labels([0.0, 1000.0, 2000.0])(2000.0) == "2 s"
