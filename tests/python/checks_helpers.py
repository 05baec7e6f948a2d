"""Shared by tests/python/checks/test_checks_*.py: run a program under the checks
registry in this process and read back what it wrote."""

from __future__ import annotations

import inspect
import json
from pathlib import Path


def run_checks(run_dir: Path, body, opts: dict | None = None) -> dict:
    """body(reg) runs the program; returns {"checks","census","syncs"} documents."""
    import gc

    from fastenough.agent import checks

    # The census counts every resident tensor of the process, garbage in cycles
    # included: what earlier tests left behind must not count here.
    gc.collect()
    checks.reset()
    reg = checks.install(str(run_dir), opts or {}, at_exit=False)
    try:
        body(reg)
    finally:
        reg.at_exit()
        checks.reset()
    out = {name: json.loads((run_dir / f"{name}.json").read_text())
           for name in ("checks", "census", "syncs")}
    assert out["checks"]["checks_error"] is None, out["checks"]["checks_error"]
    return out


def findings(doc: dict, code: str) -> list[dict]:
    return [f for f in doc["checks"]["findings"] if f["code"] == code]


def line_of(fn, marker: str) -> int:
    """Line number of the source line of fn that contains marker."""
    lines, start = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if marker in text:
            return start + i
    raise AssertionError(f"{marker!r} not in {fn.__name__}")


class StubRegistry:
    """What LogitsCheck reads of its registry, for tests that drive the check
    directly (its internal errors are collected, not reported)."""

    def __init__(self, torch) -> None:
        self.torch = torch
        self.in_steady = False
        self.probe = False
        self.errors: list[str] = []

    def internal_error(self, where: str) -> None:
        self.errors.append(where)
