"""`file:line:col code message`, then the source line and a caret under the column."""

from __future__ import annotations

from fastenough.lint.walker import LintResult
from fastenough.visible import visible


def render(result: LintResult, color: bool = False) -> str:
    out: list[str] = []
    for f in result.findings:
        code = f"\x1b[1;31m{f.code}\x1b[0m" if color else f.code
        # Paths and source lines are data: their control characters are shown as
        # escapes (the caret lines up with what is shown), only our colour is sent.
        out.append(f"{visible(f.path)}:{f.line}:{f.col}: {code} {visible(f.message)}")
        src = f.source_line.rstrip()
        if src:
            width = (f.end_col - f.col) if f.end_line == f.line and f.end_col > f.col else 1
            shown = visible(src[: f.col - 1], keep_newlines=True)
            indent = "".join(c if c == "\t" else " " for c in shown)
            out.append(f"    {visible(src, keep_newlines=True)}")
            out.append(f"    {indent}^{'~' * max(0, min(width, len(src)) - 1)}")
    for e in result.errors:
        where = f"{e.path}:{e.line}" if e.line else e.path
        out.append(f"{visible(where)}: {visible(e.message)}")
    n = len(result.findings)
    summary = f"{n} finding{'s' if n != 1 else ''} in {result.files} file" + (
        "s" if result.files != 1 else "")
    if result.errors:
        summary += f"; {len(result.errors)} file{'s' if len(result.errors) != 1 else ''} skipped"
    if n:
        summary += "; `fastenough lint --explain CODE` says why and how to fix"
    out.append(summary)
    return "\n".join(out) + "\n"
