"""Step time over the run in the HTML report (issue 37, item 7): a loop whose
steps slow down as it runs is a rising line, with the first and the last
third's medians drawn, not only a wide histogram; in Chromium the page draws
it with no console message or request."""

from __future__ import annotations

import json
import re

import pytest
from chromium_page import find_chromium, load
from report_fixtures import few_ranks_report
from typed_reports import report_to_html

from fastenough.render.html.step_series import series_svg, thirds

MS = 1_000_000
# 0.34 s a step growing to 1.35 s over 292 steps, as the Lennard-Jones fit did.
DRIFT = [int((340 + (1350 - 340) * i / 291) * MS) for i in range(292)]


def _run_dir(tmp_path, durations):
    t = 0
    lines = []
    for i, d in enumerate(durations):
        lines.append(json.dumps({"rank": 0, "pid": 1, "index": i, "start_mono_ns": t,
                                 "end_mono_ns": t + d, "start_wall_ns": t, "end_wall_ns": t + d,
                                 "items": None, "tokens": None, "source": "optimizer",
                                 "phase": "steady", "mode": "train"}))
        t += d
    (tmp_path / "steps.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_the_series_shows_a_drift_in_its_thirds():
    svg = series_svg(DRIFT, "the run")
    assert svg is not None and "Step time over the run" in svg
    head, tail = thirds(DRIFT)
    assert head < 700 * MS < 1000 * MS < tail
    # Said in the chart's description (read by screen readers) and on the chart.
    assert re.search(r"first third[^<]*median", svg) and "last third" in svg
    # A rising polyline: its last point is higher on the page (smaller y) than its first.
    pts = re.search(r'<polyline points="([^"]+)"', svg).group(1).split()
    ys = [float(p.split(",")[1]) for p in pts]
    assert ys[-1] < ys[0]
    assert series_svg([5 * MS, 6 * MS], "x") is None  # too few steps to show a course


def test_a_long_run_is_drawn_in_bounded_points():
    svg = series_svg([MS + (i % 7) * 1000 for i in range(50_000)], "the run")
    pts = re.search(r'<polyline points="([^"]+)"', svg).group(1).split()
    assert len(pts) <= 480


def test_the_report_page_has_the_plot_beside_the_histogram(tmp_path):
    html = report_to_html(few_ranks_report(1), _run_dir(tmp_path, DRIFT))
    assert "Steady step-time distribution" in html
    assert "Step time over the run" in html
    assert html.index("Steady step-time distribution") < html.index("Step time over the run")


CHROMIUM = find_chromium()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh "
                    "installs Debian's `chromium` where apt-get can)")
def test_the_plot_renders_in_chromium(tmp_path):
    page_path = tmp_path / "report.html"
    page_path.write_text(report_to_html(few_ranks_report(1), _run_dir(tmp_path, DRIFT)))
    page = load(str(page_path), CHROMIUM)
    assert page.problems() == []
    assert page.requests and all(u.startswith("file:") for u in page.requests)
    assert "Step time over the run" in page.dom
    assert "first third: median" in page.text and "last third: median" in page.text
