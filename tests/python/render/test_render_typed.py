"""The renderers read the typed Report (issue 35 item 3): the view builder and every
renderer module take fastenough.report.Report, loaded once at the edge (the CLI verb,
the end of a run), never the raw dict; a run builds its view once, and the terminal,
Markdown and HTML reports format that one view."""

from __future__ import annotations

import io
import json
import sys

import pytest
from conftest import DATA, REPO
from rich.console import Console

from fastenough.render.html import view_to_html
from fastenough.render.markdown import view_to_markdown
from fastenough.render.terminal import print_view
from fastenough.render.view.build import build_view
from fastenough.report import load

# That no module of the package outside report/ (render/ included) indexes the report's
# JSON is test_typed_reader_only.py's.


def _reports() -> list:
    """Every report under tests/data the typed reader takes (traces' and runs')."""
    out = []
    for p in sorted(DATA.rglob("*.json")):
        head = p.read_text(encoding="utf-8", errors="replace")[:4096]
        if '"fastenough.report/1"' not in head:
            continue
        try:
            out.append(pytest.param(load(p.read_text(encoding="utf-8")),
                                    id=str(p.relative_to(DATA))))
        except Exception:  # noqa: BLE001 - partial documents (golden expectations)
            continue
    from fastenough import _core

    traces = sorted((DATA / "golden").glob("*_trace.json")) + sorted(
        (REPO / "examples" / "traces").glob("*.json.gz"))
    for t in traces:
        out.append(pytest.param(load(_core.analyze_to_json([str(t)])), id=t.name))
    return out


@pytest.mark.parametrize("report", _reports())
def test_every_renderer_formats_a_typed_report(report):
    # The model's objects have no .get and no [...]: a read of the dict anywhere in
    # the view builder or a renderer fails here.
    view = build_view(report)
    buf = io.StringIO()
    print_view(view, Console(file=buf, width=120, color_system=None))
    assert buf.getvalue() and view_to_markdown(view) and view_to_html(view)


def test_the_view_builder_refuses_the_raw_dict():
    with pytest.raises(AttributeError):
        build_view(json.loads((DATA / "ranks" / "gen4.report.json").read_text()))


def test_a_run_builds_its_view_once(tmp_path, monkeypatch):
    """report.md, report.html and the terminal report of one `fastenough run` come from
    one build_view (it ran once per renderer, three times per run)."""
    from fastenough.cli import main as cli_main
    from fastenough.render.view import build as build_module

    calls = []
    real = build_module.build_view

    def counted(report, run_dir=None):
        calls.append(type(report).__name__)
        return real(report, run_dir)

    monkeypatch.setattr(build_module, "build_view", counted)
    monkeypatch.chdir(tmp_path)
    status = cli_main.main(["run", "--run-dir", str(tmp_path / "run"), "--no-history", "--",
                            sys.executable, "-c", "print('hello')"])
    assert status == 0
    assert calls == ["Report"]
    run_dir = tmp_path / "run"
    assert (run_dir / "report.md").read_text().startswith("# fastenough report")
    assert "<html" in (run_dir / "report.html").read_text()


def test_steps_jsonl_is_read_in_one_parse_and_a_damaged_line_is_left_out(tmp_path):
    from fastenough.render.run_files import _json_lines, steady_step_durations

    def step(i: int, phase: str = "steady") -> str:
        return json.dumps({"rank": 0, "index": i, "phase": phase, "start_mono_ns": 100 * i,
                           "end_mono_ns": 100 * i + 10 + i})

    whole = "\n".join([step(0, "warmup")] + [step(i) for i in range(1, 5)]) + "\n"
    assert len(_json_lines(whole.encode())) == 5
    # A cut line, two values on one line, a blank line, bytes that are no UTF-8: each
    # is left out as json.loads of the line alone leaves it out; the rest stay.
    damaged = (step(1) + "\n" + step(2)[:20] + "\n" + step(3) + ", 7\n\n" + step(4) + "\n"
               ).encode() + b'{"phase": "\xff"}\n'
    assert [r["index"] for r in _json_lines(damaged)] == [1, 4]
    (tmp_path / "steps.jsonl").write_text(whole)
    assert steady_step_durations(tmp_path) == ([11, 12, 13, 14], 0)
