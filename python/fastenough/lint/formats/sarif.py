"""`--format sarif`: SARIF 2.1.0, the format code-scanning UIs read.

One run; the tool's rules are the finding codes (ruleId = code, so a code
shared with runtime findings keeps its name); each result points at a region of
an artifact given relative to the working directory when it lies below it.
Files that were skipped become toolExecutionNotifications.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fastenough import __version__
from fastenough.lint.rules import ALL_RULES, CODES
from fastenough.lint.walker import LintResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    p = Path(path)
    try:
        rel = p.resolve().relative_to(Path.cwd().resolve())
        return rel.as_posix()
    except ValueError:
        return p.resolve().as_uri()


def _rules() -> list[dict]:
    out = []
    for code, meta in CODES.items():
        rules = [r for r in ALL_RULES if r.code == code]
        text = "\n\n".join(dict.fromkeys(r.explain for r in rules))
        out.append({
            "id": code,
            "name": code.replace("-", " ").title().replace(" ", ""),
            "shortDescription": {"text": meta.title},
            "fullDescription": {"text": "; ".join(r.summary for r in rules)},
            "help": {"text": text},
            "defaultConfiguration": {"level": "warning"},
            "properties": {"runtime": meta.runtime,
                           "rules": [r.name for r in rules]},
        })
    return out


def to_doc(result: LintResult) -> dict:
    index = {code: i for i, code in enumerate(CODES)}
    results = []
    for f in result.findings:
        region = {"startLine": f.line, "startColumn": f.col}
        if f.end_line >= f.line:
            region["endLine"] = f.end_line
            if f.end_col >= 1 and (f.end_line > f.line or f.end_col > f.col):
                region["endColumn"] = f.end_col
        if f.source_line:
            region["snippet"] = {"text": f.source_line}
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "warning",
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path)},
                "region": region}}],
            "properties": {"rule": f.rule, "function": f.function},
        })
    notes = [{"level": "warning", "message": {"text": e.message},
              "locations": [{"physicalLocation": {
                  "artifactLocation": {"uri": _uri(e.path)},
                  **({"region": {"startLine": e.line}} if e.line else {})}}]}
             for e in result.errors]
    run = {
        "tool": {"driver": {"name": "fastenough", "version": __version__,
                            "rules": _rules()}},
        "invocations": [{"executionSuccessful": True,
                         "toolExecutionNotifications": notes,
                         "workingDirectory": {"uri": Path(os.getcwd()).resolve().as_uri()}}],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render(result: LintResult) -> str:
    return json.dumps(to_doc(result), indent=2) + "\n"
