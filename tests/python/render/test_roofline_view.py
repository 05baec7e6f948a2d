"""The report's roofline.per_rank[] in the terminal and Markdown views: a section
"How close to the roof" only when a rank has rows (render/view/roofline.py)."""

from __future__ import annotations

import io
import json
import os

from rich.console import Console
from typed_reports import build_view, print_report, report_to_markdown

from fastenough import _core

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(HERE, "..", "..", "data", "traces", "kineto_minimal.json")


def _peak(device="NVIDIA A100 SXM4 80GB", dtype="tf32", flop=156e12):
    return {"device": device, "dtype": dtype, "flop_per_s": flop, "bytes_per_s": 2.039e12,
            "source": "A100 datasheet (device matched by name)"}


def _row(op, dims, calls, device_ns, pct_c, pct_m, bound, at_roof, peak):
    return {"op": op, "input_dims": dims, "input_types": '["float", "float"]',
            "family": "matmul", "calls": calls, "device_ns": device_ns, "flops": 1.0,
            "bytes": 1.0, "arithmetic_intensity": 1.0, "achieved_flop_per_s": 1.0,
            "achieved_bytes_per_s": 1.0, "pct_of_compute_peak": pct_c,
            "pct_of_memory_peak": pct_m, "bound": bound, "time_at_roof_ns": at_roof,
            "peak": peak, "notes": []}


def _report(rows, unmodelled=None):
    report = json.loads(_core.analyze_to_json([TRACE]))
    report["roofline"] = {"per_rank": [{
        "rank": 0, "ops": rows,
        "unmodelled": unmodelled or {"count": 0, "device_ns": 0, "ops": []}}]}
    return report


def test_rows_show_the_roof_they_sit_under_heaviest_first():
    rows = [
        _row("aten::addmm", "[[64], [4096, 2798], [2798, 64], [], []]", 5, 468000,
             10.048351, 24.944958, "memory", 116742.4, _peak()),
        _row("aten::mm", "[[4096, 64], [64, 2798]]", 5, 501000, 75.078449, 23.301752,
             "compute", 376143.0, _peak(dtype="fp32", flop=19.5e12)),
    ]
    report = _report(rows, {"count": 2, "device_ns": 7000, "ops": ["aten::_foo"]})
    t = build_view(report).roofline
    assert t.title == "How close to the roof"
    assert t.header == ["op", "shapes", "calls", "device", "at the roof", "of roof", "roof"]
    # The mm has more device time: first; compute-bound, its compute percentage.
    assert t.rows[0][0] == "aten::mm"
    assert t.rows[0][1] == "[[4096,64],[64,2798]]"
    assert t.rows[0][5] == "75.1%"
    assert t.rows[0][6] == "compute (fp32)"
    # The addmm is memory-bound: its memory percentage.
    assert t.rows[1][5] == "24.9%"
    assert t.rows[1][6] == "memory"
    assert "NVIDIA A100 SXM4 80GB" in t.note
    assert "2 hot op shapes without a model" in t.note and "aten::_foo" in t.note
    md = report_to_markdown(report)
    assert "## How close to the roof" in md
    assert "| aten::mm |" in md
    out = io.StringIO()
    print_report(report, Console(file=out, width=120))
    assert "How close to the roof" in out.getvalue()


def test_no_peaks_show_dashes_and_say_why():
    peak = {"device": None, "dtype": None, "flop_per_s": None, "bytes_per_s": None,
            "source": None}
    report = _report([_row("aten::mm", "[[2, 3], [3, 4]]", 1, 1000, None, None, None, None,
                           peak)])
    t = build_view(report).roofline
    assert t.rows[0][4:] == ["-", "-", "-"]
    assert "no peaks" in t.note


def test_no_rows_no_section():
    report = _report([])
    assert build_view(report).roofline is None
    assert "How close to the roof" not in report_to_markdown(report)
    del report["roofline"]  # an older report
    assert build_view(report).roofline is None


def _charted(op, dims, device_ns, intensity, flop_per_s, pct_m, peak):
    row = _row(op, dims, 1, device_ns, None, pct_m, "memory", 1.0, peak)
    row.update(arithmetic_intensity=intensity, achieved_flop_per_s=flop_per_s)
    return row


def _section(html: str) -> str:
    start = html.index('<section id="roofline"')
    return html[start:html.index("</section>", start)]


def test_html_chart_places_each_op_and_draws_the_roof():
    """The HTML report's roofline chart: a point per row (a <circle> with its tooltip),
    the roof of the peak used as a line, and the table under it."""
    from html.parser import HTMLParser

    from typed_reports import report_to_html

    peak = _peak(dtype="bf16", flop=312e12)
    rows = [_charted("aten::mm", "[[256, 512], [512, 1024]]", 20000, 146.285714, 2.68435456e13,
                     8.999549, peak),
            _charted("aten::add", "[[1024, 1024], [1024, 1024], []]", 18000, 0.0833333,
                     5.8254e10, 34.283995, peak),
            # No FLOPs (an embedding's gather, say): in the table, not on the log chart.
            _charted("aten::embedding", "[[8], [1000, 64]]", 1000, 0.0, 0.0, 1.0, peak)]
    html = report_to_html(_report(rows))
    sec = _section(html)
    assert sec.count("<circle") == 2
    assert "aten::mm [[256,512],[512,1024]] (rank 0): 146 FLOPs/byte, 26.8 TFLOP/s" in sec
    assert "roof of NVIDIA A100 SXM4 80GB, bf16: 312 TFLOP/s, 2.04 TB/s (ridge 153" in sec
    assert sec.count('class="series roof"') == 1
    assert "aten::embedding" in sec  # the table lists every row

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = set()

        def handle_starttag(self, tag, attrs):
            self.tags.add(tag)

    p = Tags()
    p.feed(sec)
    assert p.tags <= {"section", "h2", "svg", "title", "desc", "line", "text", "polyline",
                      "circle", "p", "table", "thead", "tbody", "tr", "th", "td", "div",
                      "span", "code"}, p.tags


HOSTILE = "[/]x`<img src=x onerror=alert(1)>`</text><script>alert(2)</script>\x1b[2J"


def test_html_chart_keeps_a_hostile_op_name_as_text():
    """An op name (and shapes) from the trace are text nodes and tooltips, escaped:
    no element of theirs reaches the page, control characters are shown as escapes."""
    from typed_reports import report_to_html

    peak = _peak(device="Dev<svg onload=alert(3)>", dtype="bf16", flop=312e12)
    rows = [_charted(HOSTILE, '[[1, 2], [3, "<b>"]]', 20000, 146.3, 2.68e13, 9.0, peak)]
    html = report_to_html(_report(rows))
    sec = _section(html)
    for raw in ("<img", "<script", "<svg onload", "<b>"):
        assert raw not in sec, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in sec
    assert "&lt;/text&gt;&lt;script&gt;alert(2)&lt;/script&gt;\\x1b[2J" in sec
    assert "Dev&lt;svg onload=alert(3)&gt;" in sec
    assert "\x1b" not in html


def test_html_chart_in_chromium(tmp_path):
    """The page with the chart and a hostile name in a real browser: no script runs,
    nothing is fetched, the name reads as it was written (skipped without chromium)."""
    import pytest
    from chromium_page import find_chromium, load
    from typed_reports import report_to_html

    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium is not installed")
    peak = _peak(dtype="bf16", flop=312e12)
    rows = [_charted(HOSTILE, "[[256, 512], [512, 1024]]", 20000, 146.3, 2.68e13, 9.0, peak),
            _charted("aten::add", "[[1024, 1024]]", 18000, 0.083, 5.8e10, 34.3, peak)]
    path = tmp_path / "report.html"
    path.write_text(report_to_html(_report(rows)))
    page = load(str(path), exe)
    assert page.problems() == []
    assert "&lt;img src=x onerror=alert(1)&gt;" in page.dom  # text, as written
    assert "<img" not in page.dom and "<script" not in page.dom
    assert page.dom.count("<circle") == 2
