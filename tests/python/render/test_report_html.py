"""The HTML report's structure (golden: key elements and numbers present, well
formed, no external request) for a real trace, a 64-rank job, and the Markdown
report that tells the same story without charts."""

from __future__ import annotations

import io
import json
import re

import pytest
from conftest import REPO
from html_structure import external_references, parse
from report_fixtures import SLOW_RANK, crashed, few_ranks_report, many_ranks_report
from rich.console import Console
from typed_reports import (
    build_view,
    minimal_report,
    print_report,
    report_to_html,
    report_to_markdown,
    typed,
)

from fastenough.render.units import fmt_share, share
from fastenough.render.view.steps import steady_rates

EXAMPLE = REPO / "examples" / "traces" / "train_a100_rank3.json.gz"


@pytest.fixture(scope="module")
def trace_report() -> dict:
    from fastenough import _core

    return json.loads(_core.analyze_to_json([str(EXAMPLE)]))


def check_page(text: str):
    page = parse(text)
    assert page.errors == []
    assert external_references(text, page) == []
    assert text.startswith("<!DOCTYPE html>")
    for svg in page.find("svg", class_="chart"):
        assert svg.attrs.get("role") == "img"
        title, desc = svg.attrs["aria-labelledby"].split()
        assert page.by_id(title).text.strip() and page.by_id(desc).text.strip()
    return page


def card(page, key: str) -> str:
    (c,) = page.find("div", **{"data-key": key})
    return " ".join(" ".join(part.text.split()) for part in c.children)


def test_trace_report_has_its_sections_and_numbers(trace_report):
    text = report_to_html(trace_report)
    page = check_page(text)
    ids = [s.attrs["id"] for s in page.find("section")]
    assert ids == ["findings", "steps", "device", "top", "roofline", "record"]
    # Nav links point at every section and only at them.
    assert [a.attrs["href"] for a in page.find("a")] == [f"#{i}" for i in ids]
    (device,) = trace_report["devices"]
    busy = fmt_share(share(device["busy_ns"], device["span_ns"]))
    assert busy in card(page, "busy")
    assert card(page, "finding").startswith("top finding " + trace_report["findings"][0]["code"])
    codes = [a.attrs["data-code"] for a in page.find("article", class_="finding")]
    assert codes == [f["code"] for f in trace_report["findings"]]
    # Charts: the step distribution (6 windows, 5 after warmup: dots) and the device split.
    titles = [page.by_id(s.attrs["aria-labelledby"].split()[0]).text
              for s in page.find("svg", class_="chart")]
    assert titles == ["Steady step-time distribution", "Device time by kind",
                      "Achieved FLOP/s against the roofs"]
    assert len(page.find("circle", class_="dot")) == 5
    assert "A100" in page.by_id("device").text
    top_kernel = trace_report["top_kernels"][0]["name"]
    assert top_kernel[:40] in page.by_id("top").text
    assert "train_a100_rank3.json.gz" in page.by_id("record").text


def test_64_ranks_are_summarised_and_the_worst_shown():
    report = many_ranks_report(64)
    text = report_to_html(report)
    page = check_page(text)
    assert len(text) < 150_000  # 64 ranks do not make the page 64 times longer
    tables = {t.text.split()[0]: t for t in page.find("h3")}
    assert "Phases" in tables
    phase_rows = page.by_id("timeline").text
    # The slowest ranks named: 37's steady phase is 2 s longer than the others' 10 s.
    assert f"{SLOW_RANK} (12.00 s), 0 (10.00 s), 1 (10.00 s)" in phase_rows
    # Phase table: one row per phase occurrence (6), not 64 x 6.
    timeline_section = [s for s in page.find("section") if s.attrs["id"] == "timeline"][0]
    rows = [e for e in _descendants(timeline_section) if e.tag == "tr"]
    assert len(rows) == 1 + len(report["run_details"]["phases"]) // 64
    # Device tables: min / median / max over the 64 devices, then the 3 most idle.
    rows = build_view(report).devices.rows
    assert [r[0] for r in rows] == ["min", "median", "max", str(SLOW_RANK), "63", "62"]
    # busy: 55% on the slow rank, 90% - 0.1% x rank on the others: the middle two of
    # the 64 are 86.9% and 86.8% (ranks 31 and 32).
    assert [r[3] for r in rows[:3]] == ["55.0%", "86.9%", "90.0%"]
    assert "64 devices on 64 ranks: the min, median and max" in page.by_id("device").text
    # The timeline shows the first and the slowest rank, and says so.
    assert f"Ranks 0 and {SLOW_RANK} of 64 shown" in text
    assert f"rank {SLOW_RANK} (slowest)" in page.by_id("timeline").text
    # The device split chart has one bar per shown device.
    assert f"rank {SLOW_RANK}, compute" in text


def test_few_ranks_are_all_listed():
    report = few_ranks_report(2)
    labels = [r[0] for r in build_view(report).devices.rows]
    assert labels == ["0", "1"]
    phases = build_view(report).phases
    assert phases.header[0] == "rank" and len(phases.rows) == 12
    check_page(report_to_html(report))


def _descendants(e):
    for c in e.children:
        yield c
        yield from _descendants(c)


def test_terminal_markdown_and_html_tell_the_same_numbers():
    report = many_ranks_report(64)
    md = report_to_markdown(report)
    html = report_to_html(report)
    buf = io.StringIO()
    print_report(report, console=Console(file=buf, width=200, color_system=None))
    terminal = buf.getvalue()
    throughput = steady_rates(typed(report))[0]
    assert throughput == "3.98 steps/s"
    for text in (md, html, terminal):
        assert throughput in text
        assert "straggler-rank" in text
        assert "16.0% of a step" in text
        assert "64 devices on 64 ranks" in text


def test_markdown_is_paste_ready(trace_report):
    md = report_to_markdown(trace_report)
    assert md.startswith("# fastenough report\n")
    headings = re.findall(r"^## (.+)$", md, re.M)
    assert headings == ["Findings", "Steady steps", "Device time", "Trace in depth",
                        "Top kernels and ops", "How close to the roof", "Reproducibility record"]
    assert md.count("<details>") == md.count("</details>") >= 3
    # Only the folding tags: nothing else that a PR comment would show as raw HTML
    # (a `<` in a kernel name is escaped: `\<float`).
    assert set(re.findall(r"(?<!\\)</?([a-z]+)", md)) <= {"details", "summary"}
    assert "| # | code | verdict | saving | what |" in md
    assert "| rank | device |" in md
    for f in trace_report["findings"]:
        assert f"`{f['code']}`" in md


def test_a_crashed_run_says_so_first():
    report = crashed(few_ranks_report(1))
    page = check_page(report_to_html(report))
    (c,) = page.find("div", **{"data-key": "run"})
    assert "alert" in c.attrs["class"].split()
    assert "exit 1" in c.text


def test_an_incomplete_measurement_comes_first():
    report = few_ranks_report(1)
    report["measurement"] = {"status": "blind", "reasons": [
        {"code": "no-torch", "text": "the program never imported torch"}]}
    text = report_to_html(report)
    page = check_page(text)
    (banner,) = page.find("div", role="alert")
    assert "Measurement incomplete" in banner.text
    assert "never imported torch" in banner.text
    assert text.index('role="alert"') < text.index('class="cards"')
    md = report_to_markdown(report)
    assert md.split("\n")[2].startswith("**Measurement incomplete")


def test_an_empty_report_renders():
    page = check_page(report_to_html(minimal_report()))
    assert page.find("section", id="findings")
