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
