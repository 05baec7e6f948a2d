"""The report's view (render/view/): built once per render, and the only thing
the terminal, Markdown and HTML renderers format. Names from traces stay data
in the view and in all three formats: a kernel named `[bold]x` or `<img ...>`
shows as written. A real trace through the real analysis."""

from __future__ import annotations

import copy
import io
import json
import re

import pytest
from conftest import REPO
from hostile_inputs import assert_markdown_is_inert
from html_structure import parse
from rich.console import Console
from typed_reports import build_view, print_report, report_to_html, report_to_markdown

from fastenough.render.html import view_to_html
from fastenough.render.markdown import view_to_markdown
from fastenough.render.terminal import print_view
from fastenough.render.view import build as build_module
from fastenough.render.view.model import Code, ReportView

EXAMPLE = REPO / "examples" / "traces" / "train_a100_rank3.json.gz"
HOSTILE = "[bold]x[/bold]<img src=x onerror=alert(1)>*em*|`t`"


@pytest.fixture(scope="module")
def trace_report() -> dict:
    from fastenough import _core

    return json.loads(_core.analyze_to_json([str(EXAMPLE)]))


def _terminal(render, subject) -> str:
    buf = io.StringIO()
    render(subject, Console(file=buf, width=250, color_system=None))
    return buf.getvalue()


def test_the_view_holds_what_a_person_is_shown(trace_report):
    view = build_view(trace_report)
    assert isinstance(view, ReportView)
    codes = [f["code"] for f in trace_report["findings"]]
    assert [v.code for v in view.findings] == codes
    assert [v.rank for v in view.findings] == list(range(1, len(codes) + 1))
    assert all(isinstance(v.code, Code) for v in view.findings)
    assert [r[1] for r in view.findings_table.rows] == codes
    # The trace's one device: busy 388.587 ms of a 464.594 ms span = 83.64%.
    figures = {f.key: f for f in view.figures}
    assert figures["busy"].value == "83.6%" and figures["busy"].detail == "trace"
    assert figures["finding"].value == codes[0]
    assert "run" not in figures and view.run is None
    assert view.measurement.headline is None and not view.measurement.recorded
    # 20 kernels in the report, the top 10 shown, the HTML bars beside them.
    assert len(trace_report["top_kernels"]) == 20
    assert len(view.top_kernels.rows) == 10 == len(view.charts.kernel_shares)
    assert view.trace_names == ["train_a100_rank3.json.gz"] and view.trace_count == 1


def test_each_render_builds_the_findings_once(trace_report, monkeypatch):
    calls = []
    real = build_module.findings_views

    def counted(report):
        calls.append(1)
        return real(report)

    monkeypatch.setattr(build_module, "findings_views", counted)
    report_to_markdown(trace_report)
    assert len(calls) == 1
    _terminal(print_report, trace_report)
    assert len(calls) == 2
    report_to_html(trace_report)
    assert len(calls) == 3


def test_the_renderers_format_the_view_and_nothing_else(trace_report):
    view = build_view(trace_report)
    assert view_to_markdown(view) == report_to_markdown(trace_report)
    assert view_to_html(view) == report_to_html(trace_report)
    assert _terminal(print_view, view) == _terminal(print_report, trace_report)
    # A change to the view alone shows in every format: none reads the report.
    view.findings[0].title = "retitled in the view"
    view.figures[0].value = "42 steps/s"
    for text in (view_to_markdown(view), view_to_html(view), _terminal(print_view, view)):
        assert "retitled in the view" in text
    assert "42 steps/s" in view_to_markdown(view) and "42 steps/s" in view_to_html(view)


def test_names_from_traces_stay_data_in_every_format(trace_report):
    report = copy.deepcopy(trace_report)
    report["top_kernels"][0]["name"] = HOSTILE
    report["findings"][0]["title"] = HOSTILE
    view = build_view(report)
    # The view keeps the name as written: escaping is each renderer's.
    assert view.top_kernels.rows[0][0] == HOSTILE
    assert view.findings[0].title == HOSTILE

    terminal = _terminal(print_report, report)
    assert terminal.count(HOSTILE) == 2  # the finding's title and the kernel's row

    md = report_to_markdown(report)
    # Escaped as written (\<img, \[bold\]), so the Markdown renders it as text.
    assert re.search(r"(?<!\\)<img|(?<!\\)\[bold", md) is None
    assert_markdown_is_inert(md, HOSTILE)

    page = parse(report_to_html(report))
    assert page.errors == []
    assert page.find("img") == [] and page.find("bold") == []
    assert HOSTILE in page.by_id("top").text
    (first,) = [a for a in page.find("article") if a.attrs.get("id") == "finding-1"]
    assert HOSTILE in first.text


def test_what_the_in_job_analysis_did_is_in_every_format(trace_report):
    """run --analyze-in-job: the line fastenough run printed on stderr is in the
    rendered reports too (run_details.in_job), names from the job kept inert."""
    report = copy.deepcopy(trace_report)
    report["run"] = {"command": ["torchrun", "train.py"], "exit_status": 0, "wall_ns": 10**10}
    report["run_details"] = {"in_job": {
        "used": False, "ranks": [0, 2, 3], "missing_ranks": [1],
        "why_missing": {"1": f"sent nothing within 5 s {HOSTILE}"},
        "note": "the report was made from the traces after the job"}}
    line = ("in-job analysis: no summary from rank 1 (rank 1: sent nothing within 5 s "
            f"{HOSTILE}); the report was made from the traces after the job")
    assert build_view(report).run.in_job == line
    assert line in _terminal(print_report, report).replace("\n", "")
    md = report_to_markdown(report)
    assert "In-job analysis: no summary from rank 1" in md
    assert_markdown_is_inert(md, HOSTILE)
    html = report_to_html(report)
    assert "in-job analysis: no summary from rank 1" in html and "<img src=x" not in html
    # Every rank sent its summary: said once, with the ranks.
    report["run_details"]["in_job"] = {"used": True, "ranks": [0, 1, 2, 3], "missing_ranks": [],
                                       "why_missing": {}}
    assert build_view(report).run.in_job == ("in-job analysis: merged from the summaries that "
                                             "ranks 0-3 made of their own traces at exit")
    # Without the option: no line.
    del report["run_details"]["in_job"]
    assert build_view(report).run.in_job is None


def test_the_findings_of_many_ranks_are_one_per_code(trace_report):
    """More than four ranks: one view per code and verdict over the ranks that
    have it, shown through the rank that saves the most, its saving as min /
    median / max over the ranks; the JSON keeps every rank's finding."""
    report = copy.deepcopy(trace_report)
    first = next(f for f in report["findings"] if (f["saving"].get("share_of_step") or 0) > 0)
    per_rank = []
    for rank, share in enumerate([0.10, 0.30, 0.20, 0.25, 0.15, 0.05]):
        f = copy.deepcopy(first)
        f["rank"] = rank
        f["where"] = [{**w, "rank": rank} for w in f["where"]]
        f["saving"]["share_of_step"] = share
        f["overlaps"] = []
        per_rank.append(f)
    job = {**copy.deepcopy(first), "code": "straggler-rank", "rank": None}
    report["findings"] = per_rank + [job]
    view = build_view(report)
    assert [v.code for v in view.findings] == [first["code"], "straggler-rank"]
    grouped = view.findings[0]
    assert "(on 6 of 6 ranks; shown: rank 1)" in grouped.title
    assert grouped.saving.startswith("per rank 5% / 18% / 30% of a step (min / median / max); "
                                     "the most: rank 1 (30%), rank 3 (25%), rank 2 (20%).")
    assert "rank 1" in str(grouped.where[0])
    # Four ranks or fewer: every finding as it is.
    report["findings"] = per_rank[:4]
    assert len(build_view(report).findings) == 4
