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


def write_gzip_bomb(path: Path, inflated_bytes: int, head: bytes = b'{"traceEvents": [',
                    fill: bytes = b" ") -> Path:
    """A gzip file of `head` then `fill` up to `inflated_bytes`: spaces are valid
    JSON, so only a limit on the inflated size stops it; zeros are not JSON at
    byte 0. Written in chunks: the inflated text never exists in memory here."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
    chunk = fill * (1 << 20)
    with open(path, "wb") as f:
        f.write(z.compress(head))
        left = inflated_bytes - len(head)
        while left > 0:
            f.write(z.compress(chunk[:left]))
            left -= len(chunk)
        f.write(z.flush())
    return path


def write_overlapping_npz(path: Path, copies: int, zeros: int = 64 << 20) -> Path:
    """An .npz whose central directory lists one deflated member `copies` times
    under different names (the classic overlapping-entries bomb): each entry
    inflates the same compressed bytes again."""
    import io
    import struct
    import zipfile

    import numpy as np

    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(zeros, dtype=np.uint8))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.npy", buf.getvalue())
    data = out.getvalue()
    eocd = data.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack("<II", data[eocd + 12:eocd + 20])
    entry = data[cd_offset:cd_offset + cd_size]
    name_len = struct.unpack("<H", entry[28:30])[0]
    entries = [entry]
    for i in range(1, copies):
        name = f"m{i:05d}.npy".encode()
        entries.append(entry[:28] + struct.pack("<H", len(name)) + entry[30:46] + name
                       + entry[46 + name_len:])
    cd = b"".join(entries)
    end = (b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, copies, copies, len(cd), cd_offset, 0))
    path.write_bytes(data[:cd_offset] + cd + end)
    return path
