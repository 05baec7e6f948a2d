"""Lines of the report that come from lint's cross-reference
(cpp/fastenough/rundir/lint_cross_reference.h)."""

from __future__ import annotations

import os

from fastenough.report.model import Finding, Report

MAX_UNCONFIRMED = 10


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def also_in_source(finding: Finding) -> list[str]:
    """`file:line (fastenough lint: code)` for each lint finding that matches
    this runtime one, named by the code `fastenough lint` prints (its rule,
    e.g. sync-method-in-loop, is a detail of the lint JSON)."""
    return [f"{_short(e.file)}:{e.line} (fastenough lint: {finding.code})"
            for e in finding.also_in_source or ()]


def unconfirmed_lines(report: Report) -> list[str]:
    """The lint findings this run did not confirm, one line each, after the findings."""
    lint = report.lint
    items = lint.unconfirmed if lint is not None else ()
    if not items:
        return []
    head = (f"{len(items)} seen in the source but not confirmed by this run (not ranked: "
            "the run did not measure them)")
    lines = [head]
    for u in items[:MAX_UNCONFIRMED]:
        lines.append(f"{_short(u.file)}:{u.line}:{u.col}: {u.code} {u.message}")
    if len(items) > MAX_UNCONFIRMED:
        lines.append(f"... and {len(items) - MAX_UNCONFIRMED} more: fastenough lint "
                     + " ".join(_short(f) for f in lint.files))
    return lines
