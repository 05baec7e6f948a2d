"""`--format json`: schema fastenough.lint/1.

  {"schema": "fastenough.lint/1", "tool_version": str, "files": int,
   "findings": [{"path", "line", "col", "end_line", "end_col", "code", "rule",
                 "message", "function", "source_line", "source": "lint"}],
   "errors": [{"path", "line", "message"}]}

Lines and columns are 1-based; columns count characters; end_col is exclusive.
"""

from __future__ import annotations

import json

from fastenough import __version__
from fastenough.lint.walker import LintResult

SCHEMA = "fastenough.lint/1"


def to_doc(result: LintResult) -> dict:
    return {"schema": SCHEMA, "tool_version": __version__, "files": result.files,
            "findings": [dict(f.to_dict(), source="lint") for f in result.findings],
            "errors": [e.to_dict() for e in result.errors]}


def render(result: LintResult) -> str:
    return json.dumps(to_doc(result), indent=2) + "\n"
