"""The JSON documents the CLI writes (stdout --json, ab.json, freeze.json, ...)
are JSON: never NaN or Infinity, which Python's json writes by default and no
other reader accepts (issue 34, item 15).

Inputs are checked to be finite (inputs/numbers.py, inputs/json_input.py), so a
non-finite number here is a bug in fastenough. It is not allowed to cost the
user the document (an `ab` of twenty runs, a report): it is written as null
and named on stderr as the bug it is.
"""

from __future__ import annotations

import json
import math
import sys
from typing import IO


def _where_non_finite(value: object, path: str = "$") -> list[str]:
    """JSON paths of the non-finite floats in `value` (iterative: any depth)."""
    found, stack = [], [(path, value)]
    while stack:
        here, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            found.append(here)
        elif isinstance(v, dict):
            stack.extend((f"{here}.{k}", x) for k, x in v.items())
        elif isinstance(v, list | tuple):
            stack.extend((f"{here}[{i}]", x) for i, x in enumerate(v))
    return sorted(found)


def _finite_only(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite_only(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_only(v) for v in value]
    return value


# A document whose compact text is larger is written compact: with an indent,
# Python's json encodes in Python, not C (65 s of the 67 s of `analyze --json`
# for a 75 MB report before reports were bounded, issue 34 item 9).
COMPACT_ABOVE = 8 << 20


def dumps(doc: object, indent: int | None = 2, **kwargs) -> str:
    """json.dumps(doc, allow_nan=False); a non-finite number becomes null and
    its place is reported on stderr. Compact above COMPACT_ABOVE characters."""
    try:
        if indent is not None and not kwargs:
            text = json.dumps(doc, allow_nan=False)
            if len(text) > COMPACT_ABOVE:
                return text
        return json.dumps(doc, indent=indent, allow_nan=False, **kwargs)
    except ValueError:
        where = _where_non_finite(doc)
        if not where:
            raise
        more = f" and {len(where) - 1} more" if len(where) > 1 else ""
        sys.stderr.write(f"fastenough: internal error: a non-finite number at {where[0]}{more} "
                         "was written as null (a bug in fastenough; please report it)\n")
        return json.dumps(_finite_only(doc), indent=indent, allow_nan=False, **kwargs)


def dump(doc: object, stream: IO[str] | None = None, indent: int | None = 2) -> None:
    """dumps(doc) and a newline, to `stream` (stdout by default)."""
    (stream or sys.stdout).write(dumps(doc, indent=indent) + "\n")
