"""Text from traces, paths, commands and programs is data: every renderer passes
it through one of these before it reaches a medium, so that no name is ever read
as markup or as a control sequence.

- visible() (fastenough/visible.py, the foundation every layer uses): control
  characters and undecodable bytes written as escapes.
- terminal_text(): a rich Text of the visible string; rich never parses a Text
  for markup (`[/]x` or `[link=...]` stay text).
- md_text(), md_cell(), md_code(): Markdown (CommonMark / GFM) that renders as
  the literal string: ASCII punctuation that could start markup or HTML is
  backslash-escaped, and a code span's fence is longer than any backtick run
  inside it, so a name cannot close it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fastenough.visible import visible

if TYPE_CHECKING:
    from rich.text import Text


def terminal_text(text: object, style: str = "") -> Text:
    """A rich Text that shows `text` literally: never parsed as markup."""
    from rich.text import Text

    return Text(visible(text), style=style)


def terminal_line(*parts: object) -> Text:
    """One line from parts: a str or other value is data (shown literally), a
    (str, style) tuple is a styled literal. Nothing in it is parsed as markup."""
    from rich.text import Text

    line = Text()
    for part in parts:
        if isinstance(part, tuple):
            line.append(visible(part[0]), style=part[1])
        elif isinstance(part, Text):
            line.append_text(part)
        else:
            line.append(visible(part))
    return line


# The ASCII punctuation that can open or close inline Markdown (emphasis, code,
# strikethrough), a link or an image (both need `[`), an HTML tag or entity, or a
# GFM table cell. A backslash before ASCII punctuation is always a literal in
# CommonMark; `(`, `)`, `!` and `#` are harmless once `[` is escaped and the text
# does not start a line.
_MD_ACTIVE = re.compile(r"([\\`*_\[\]<>&|~])")
# What opens a block when it starts a line: a heading, a list item, a quote, a
# setext underline.
_MD_LINE_START = re.compile(r"^([-+=#]|\d+[.)])")


def md_text(text: object, line_start: bool = False) -> str:
    """Markdown inline text that renders as exactly `text`, on one line.
    line_start: the text begins a line, where `#`, `-` or `1.` would open a block."""
    s = _MD_ACTIVE.sub(r"\\\1", visible(text))
    if line_start:
        s = _MD_LINE_START.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], s)
    return s


def md_cell(text: object) -> str:
    """A GFM table cell: md_text (which escapes `|` too) on one line."""
    return md_text(text)


def md_code(text: object, in_table: bool = False) -> str:
    """A code span showing `text` literally: the fence is one backtick longer than
    the longest run of backticks inside, padded with a space when the text starts
    or ends with a backtick or a space (CommonMark strips one space each side).
    in_table: a `|` is escaped even inside the span, as GFM tables require."""
    s = visible(text)
    if not s:
        return "` `"
    longest = max((len(run) for run in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    if s[0] in "` " or s[-1] in "` ":
        s = f" {s} "
    if in_table:
        s = s.replace("|", "\\|")
    return f"{fence}{s}{fence}"
