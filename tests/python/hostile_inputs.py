"""Hostile names for renderer tests: a real trace whose op, kernel and device
names carry rich markup, terminal escape sequences, Markdown and HTML, and a
check that Markdown renders to nothing but the text it was given (markdown-it-py,
the CommonMark parser rich ships with, with GFM tables)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"

# Each name tries one way out of the text it is put in.
OP = "[/]x`<img src=x onerror=alert(1)>`"  # rich closing tag; breaks a code span
KERNEL = "[link=https://evil.example]k[/link]\x1b[2J\x1b]8;;https://evil.example\x07"
DEVICE = "![t](http://evil.example/t.png)|<svg onload=alert(1)>"
# How each reads once control characters are shown as escapes.
OP_SHOWN = OP
KERNEL_SHOWN = "[link=https://evil.example]k[/link]\\x1b[2J\\x1b]8;;https://evil.example\\x07"
DEVICE_SHOWN = DEVICE


def write_hostile_trace(path: Path) -> Path:
    """kineto_minimal.json with its op, kernel and device renamed."""
    trace = json.loads((DATA / "traces" / "kineto_minimal.json").read_text())
    trace["deviceProperties"][0]["name"] = DEVICE
    for e in trace["traceEvents"]:
        if e.get("name") == "aten::mm":
            e["name"] = OP
        elif e.get("name") == "ampere_sgemm_64x64_nn":
            e["name"] = KERNEL
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace))
    return path


# What the Markdown report may turn into: its own structure, nothing a name brings.
ALLOWED_TAGS = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "code", "pre",
                "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "br", "hr"}


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def render_markdown(md: str) -> tuple[list[tuple[str, list]], str]:
    """The elements (tag, attributes) and the text a CommonMark + GFM-table
    renderer makes of `md` (raw HTML passes through, as on GitHub before its
    sanitiser)."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    p = _Collect()
    p.feed(html)
    return p.tags, "".join(p.text)


def assert_markdown_is_inert(md: str, *shown: str) -> None:
    """Only the report's own elements, no attribute that runs or loads anything,
    and each of `shown` in the rendered text exactly."""
    assert "\x1b" not in md and "\x07" not in md
    tags, text = render_markdown(md)
    for tag, attrs in tags:
        assert tag in ALLOWED_TAGS, f"<{tag} {attrs}> in the rendered Markdown"
        # GFM alignment of a table column is the one attribute the report makes.
        ok = tag in ("th", "td") and attrs in ([("style", "text-align:right")],
                                               [("style", "text-align:left")])
        assert not attrs or ok, f"<{tag} {attrs}>: attributes in the rendered Markdown"
    for s in shown:
        assert s in text, f"{s!r} is not shown literally"
