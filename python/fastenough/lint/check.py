"""Lint one file's text (the C++ core parses it, runs the rules, drops suppressed findings)."""

from __future__ import annotations

from fastenough import _core
from fastenough.lint.finding import FileError, LintFinding
from fastenough.lint.rules import Rule


def check_text(path: str, text: str | bytes, rules: list[Rule] | None = None
               ) -> tuple[list[LintFinding], FileError | None]:
    """Findings (sorted) and the reason the file was skipped, if it was.

    `rules` limits the run to those rules' codes (None: every rule)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    codes = None if rules is None else sorted({r.code for r in rules})
    found, error = _core.lint_source(path, data, codes)
    return ([LintFinding(*f) for f in found],
            None if error is None else FileError(*error))
