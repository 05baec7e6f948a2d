"""The contract's numbers, and how text from programs and traces is made safe data.

Everything an answer quotes from the measured program or its traces (its output,
file and function names, kernel and op names, finding titles that name them) is
data: it goes into JSON strings, bounded in length, with the characters that
could hide or reorder text on a screen (control characters, bidirectional
overrides, zero-width marks) written out as visible escapes. Nothing an answer
quotes is ever placed where an agent would read it as the server's own words.
"""

from __future__ import annotations

import json
import re

# Time limits of one call, seconds: what the agent gets by default, and the most
# it may ask. A call that reaches its limit stops the command and answers with
# what was measured (error kind "time-limit").
DEFAULT_TIMEOUT_S = {"run": 900.0, "ab": 1800.0, "analyze": 600.0, "report": 300.0,
                     "diff": 300.0, "compare": 300.0, "decide": 60.0, "lint": 300.0,
                     "replay": 300.0}
MAX_TIMEOUT_S = 24 * 3600.0

# After a cancellation or a time limit, how long the run's supervisor gets to stop
# the program (it forwards SIGTERM to the program's process group) and write the
# report of what was measured, before everything left is killed.
STOP_GRACE_S = 30.0

# How often a long call sends a progress notification, seconds.
PROGRESS_EVERY_S = 2.0

# Findings (and rows of other lists) in an answer by default, and at most.
DEFAULT_TOP = 5
MAX_TOP = 50

# The program's own output comes back only as a tail of each stream.
OUTPUT_TAIL_CHARS = 2000
OUTPUT_TAIL_LINES = 30

# One JSON-RPC message from the client, bytes: a longer one is answered with a parse
# error and never held in memory whole (wire.Gate).
MAX_MESSAGE_BYTES = 4 << 20

# One string quoted from a program or a trace (a name, a title, an action).
MAX_STRING_CHARS = 300
# One whole answer (its JSON text); past it, lists are cut and the answer says so.
MAX_ANSWER_CHARS = 24000
# `explain` and `report` with detail "full" may be longer.
MAX_LONG_ANSWER_CHARS = 60000

# C0 and C1 controls but tab and newline, bidirectional embeddings, overrides and
# isolates, zero-width and invisible marks, the BOM, and lone surrogates.
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e"
                     "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def clean(text: object, limit: int = MAX_STRING_CHARS, keep_newlines: bool = False) -> str:
    """A string from a program or a trace, made safe to show: hidden characters written
    out as visible escapes (\\u202e), newlines too unless kept, at most `limit` characters
    (the cut is marked with '…')."""
    s = text if isinstance(text, str) else str(text)
    if not keep_newlines:
        s = s.replace("\r\n", "\n").replace("\n", "\\n").replace("\t", " ")
    s = _HIDDEN.sub(_escape, s)
    if len(s) > limit:
        s = s[: max(limit - 1, 0)] + "…"
    return s


def clean_tree(value, limit: int = MAX_STRING_CHARS):
    """clean() on every string of a JSON value (keys included); numbers, booleans and
    null as they are."""
    if isinstance(value, str):
        return clean(value, limit)
    if isinstance(value, dict):
        return {clean(k, 80): clean_tree(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_tree(v, limit) for v in value]
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value


def tail(text: str, chars: int = OUTPUT_TAIL_CHARS, lines: int = OUTPUT_TAIL_LINES) -> str:
    """The end of a stream: its last `lines` lines, at most `chars` characters, cleaned
    (newlines kept); a cut start is marked with '…'."""
    text = text.replace("\r\n", "\n")
    cut = False
    parts = text.rstrip("\n").split("\n")
    if len(parts) > lines:
        parts, cut = parts[-lines:], True
    s = "\n".join(parts)
    if len(s) > chars:
        s, cut = s[-chars:], True
    s = clean(s, limit=chars + 16, keep_newlines=True)
    return ("…" + s) if cut and s else s


def read_tail(path, chars: int = OUTPUT_TAIL_CHARS, lines: int = OUTPUT_TAIL_LINES) -> str:
    """tail() of a file, reading only its end (a program may print gigabytes)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 4 * chars))
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if size > 4 * chars:  # started mid-line, maybe mid-character
        text = text.partition("\n")[2] or text
        return tail("…\n" + text, chars, lines) if text else ""
    return tail(text, chars, lines)


def tidy(value):
    """Floats rounded for reading: at 100 and above to integers (nanoseconds, bytes), below
    to 4 significant digits (shares, ratios, rates). NaN and infinities become null."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        if abs(value) >= 100:
            return round(value)
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tidy(v) for v in value]
    return value


def _compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def to_text(answer: dict) -> str:
    """The answer as the text an agent reads: JSON, keys in the answer's order, one line
    per key and one per element of a list of objects (findings, runs, rows)."""
    lines = []
    for key, value in answer.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            inner = ",\n".join("  " + _compact(v) for v in value)
            lines.append(f" {_compact(key)}: [\n{inner}\n ]")
        else:
            lines.append(f" {_compact(key)}: {_compact(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"


_CODE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def code_ok(code: object) -> str:
    """A finding code as the catalog spells them (lowercase words and dashes), or '?'.
    Codes are the only report strings an answer's summary line repeats."""
    if isinstance(code, str) and len(code) <= 40 and _CODE.fullmatch(code):
        return code
    return "?"
