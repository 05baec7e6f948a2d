"""Suppression comments: `# fastenough: ignore[code, code]` or a bare `# fastenough: ignore`.

The comment applies to findings on its own line, or, when it stands alone on a
line, to the line below it.
"""

from __future__ import annotations

import re

_COMMENT = re.compile(r"#\s*fastenough:\s*ignore(?:\[([^\]]*)\])?")
ALL = "*"


def suppressions(lines: list[str]) -> dict[int, set[str]]:
    """Line number (1-based) -> the codes suppressed there (ALL for a bare ignore)."""
    out: dict[int, set[str]] = {}
    for i, text in enumerate(lines, start=1):
        if "fastenough" not in text:
            continue
        m = _COMMENT.search(text)
        if not m:
            continue
        codes = {c.strip() for c in m.group(1).split(",")} if m.group(1) else {ALL}
        codes.discard("")
        out.setdefault(i, set()).update(codes)
        if text.lstrip().startswith("#"):
            out.setdefault(i + 1, set()).update(codes)
    return out


def is_suppressed(table: dict[int, set[str]], line: int, code: str) -> bool:
    codes = table.get(line)
    return bool(codes) and (code in codes or ALL in codes)
