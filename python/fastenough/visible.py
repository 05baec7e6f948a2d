"""Text from traces, paths, commands and programs is data: visible() writes its
control characters (C0, DEL, C1, bidirectional overrides) and the bytes that were
not UTF-8 (the surrogates os.fsdecode leaves for them) as Python-style escapes,
`\\x1b`, `\\u202e`: a terminal never receives an ESC, a CSI or an OSC 8 hyperlink
from a kernel name, and a reader sees that the name holds one.

Every layer uses it (an input's error message names the file, a renderer shows a
kernel name), so it sits at the foundation; the medium-specific escapes built on
it (rich Text, Markdown) are in render/escape.py.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls (0x9b is a one-byte CSI on some terminals), the
# bidirectional embeddings, overrides and isolates that reorder what is shown
# ("Trojan Source"), zero-width and other invisible format characters, the line
# and paragraph separators, and lone surrogates (undecodable bytes of a path).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")
_UNSAFE_KEEP_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
    "\ud800-\udfff]")


def _escape_char(m: re.Match) -> str:
    c = m.group(0)
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # os.fsdecode's stand-in for the byte o - 0xDC00
        return f"\\x{o - 0xDC00:02x}"
    if c == "\t":
        return "\\t"
    if c == "\n":
        return "\\n"
    if c == "\r":
        return "\\r"
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}"


def visible(text: object, keep_newlines: bool = False) -> str:
    """`text` with every control or invisible character written as an escape.
    keep_newlines: newlines and tabs stay as they are (multi-line messages)."""
    s = text if isinstance(text, str) else str(text)
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape_char, s)
