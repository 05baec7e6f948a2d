"""Names from traces, paths and commands are data in every renderer: rich never
reads them as markup, the terminal never receives their escape sequences, and
Markdown shows them as text (a backtick cannot close a code span, an image or
a tag in a table cell stays text). Real traces, the real CLI, markdown-it-py."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hostile_inputs import (
    DEVICE_SHOWN,
    KERNEL_SHOWN,
    OP,
    OP_SHOWN,
    assert_markdown_is_inert,
    write_hostile_trace,
)

from fastenough.render.escape import md_code, md_text
from fastenough.visible import visible


def _no_traceback(r: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in r.stderr and "MarkupError" not in r.stderr, r.stderr


def test_analyze_terminal_shows_markup_and_escapes_as_text(tmp_path, cli):
    trace = write_hostile_trace(tmp_path / "t.json")
    r = cli("analyze", trace, cwd=tmp_path)
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert OP in r.stdout  # `[/]x` was a MarkupError (exit 3)
    assert KERNEL_SHOWN in r.stdout  # `[link=...]` stays text, ESC shown as \x1b


def test_analyze_markdown_renders_names_as_text(tmp_path, cli):
    trace = write_hostile_trace(tmp_path / "t.json")
    r = cli("analyze", trace, "--md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert_markdown_is_inert(r.stdout, OP_SHOWN, KERNEL_SHOWN, DEVICE_SHOWN)


def test_trace_path_with_brackets_and_backticks(tmp_path, cli):
    folder = "exp[lr=0.1]`<svg onload=alert(1)>`"
    trace = write_hostile_trace(tmp_path / folder / "t.json")
    r = cli("analyze", trace, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"{folder}/t.json" in r.stdout  # was shown as `exp/t.json`
    md = cli("analyze", trace, "--md", cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    assert_markdown_is_inert(md.stdout, f"{folder}/t.json")


def test_report_html_shows_escapes_visibly(tmp_path, cli):
    trace = write_hostile_trace(tmp_path / "t.json")
    r = cli("report", trace, "--html", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout
    assert "[link=https://evil.example]k[/link]\\x1b[2J" in r.stdout


def test_run_with_markup_in_the_command_keeps_report_and_history(tmp_path, cli):
    r = cli("run", "--no-trace", "--", sys.executable, "-c", "pass", "[/]", "[link=x]",
            cwd=tmp_path)
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert "report not rendered" not in r.stderr
    assert "'[/]' '[link=x]'" in r.stderr  # the Run line, with the command as typed
    h = cli("history", cwd=tmp_path)
    _no_traceback(h)
    assert h.returncode == 0, h.stderr
    assert "'[/]' '[link=x]'" in h.stdout


def test_run_under_a_directory_with_backticks_writes_inert_markdown(tmp_path, cli):
    where = tmp_path / "d`<svg onload=alert(1)>`"
    where.mkdir()
    script = where / "x.py"
    script.write_text("print('ok')\n")
    r = cli("run", "--no-trace", "--", sys.executable, str(script), cwd=where)
    assert r.returncode == 0, r.stderr
    (run_dir,) = (where / ".fastenough" / "runs").iterdir()
    md = (run_dir / "report.md").read_text()
    assert_markdown_is_inert(md, str(script))


@pytest.mark.parametrize("text", [
    "plain", "`", "``x``", " `a` ", "a|b", "![i](http://e/x.png)", "<b>&amp;</b>",
    "\x1b[31mred", "\u202egnp.exe", "tab\there", "line\nbreak", "[x](y)", "*a* _b_ ~~c~~",
    "\\`", "1. not a list", "# not a heading", "- not an item", "> not a quote", "===",
    "&amp; &#60;", "<http://e/>", "www.e.example", "a\\\\b",
])
def test_markdown_helpers_render_exactly_the_text(text):
    from hostile_inputs import render_markdown

    shown = visible(text)
    cells = (md_code(text, in_table=True), md_text(text))
    for md in (md_text(text, line_start=True), md_code(text),
               *(f"| h |\n|---|\n| {c} |" for c in cells)):
        tags, rendered = render_markdown(md)
        assert all(t in {"p", "code", "table", "thead", "tbody", "tr", "th", "td"}
                   for t, _ in tags), (md, tags)
        assert shown.strip() in rendered, (md, rendered)


def test_visible_escapes_controls_and_undecodable_bytes():
    assert visible("a\x1bb\x9bc\u202ed\udcffe") == "a\\x1bb\\x9bc\\u202ed\\xffe"
    assert visible("x\ny\tz", keep_newlines=True) == "x\ny\tz"
    assert visible("x\ny") == "x\\ny"
