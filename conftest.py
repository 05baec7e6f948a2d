"""Test selection shared by tests/python and tests/real (the fixtures live in
tests/python/conftest.py, which owns the module name `conftest` for the tests'
imports; this file only adds hooks).

Markers (pyproject.toml registers them; pick with `-m`):
  unit         in-process tests: no program, no CLI started (the fast part)
  integration  tests that start processes: the CLI, programs under
               `fastenough run`, torchrun, the MCP server
  slow         the tests listed in tests/slow_tests.txt (15 s or more each
               on a loaded two-core machine); skipped unless FASTENOUGH_SLOW=1
  real         runs of real programs (tests/real), plain and under
               `fastenough run`; skipped unless FASTENOUGH_REAL=1
`unit` and `integration` are given by what a test module does: one whose
source starts a process (subprocess, Popen, torchrun, multiprocessing, the
suite's `run_cli` / `run_under_agent` helpers) is integration, the rest unit.

The default `bash scripts/test.sh` skips `slow` and `real`, naming why, so that
it stays within 30 minutes on two cores; CI (.ci/run) runs them with
FASTENOUGH_SLOW=1 FASTENOUGH_REAL=1, and so does anyone who sets them.
  bash scripts/test.sh -m unit          # the in-process tests only (minutes)
  FASTENOUGH_SLOW=1 bash scripts/test.sh -k ab   # the ab tests, slow ones too
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REAL = os.environ.get("FASTENOUGH_REAL") == "1"
SLOW = os.environ.get("FASTENOUGH_SLOW") == "1"
ROOT = Path(__file__).resolve().parent
SLOW_LIST = ROOT / "tests" / "slow_tests.txt"
_STARTS_PROCESSES = re.compile(
    r"\bsubprocess\b|\bPopen\b|\btorchrun\b|\bmultiprocessing\b|\brun_cli\b|\brun_under_agent\b")


def _slow_tests() -> set[str]:
    lines = SLOW_LIST.read_text(encoding="utf-8").splitlines() if SLOW_LIST.exists() else []
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def pytest_collection_modifyitems(config, items):
    slow = _slow_tests()
    kind_of_module: dict[Path, str] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path not in kind_of_module:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                text = ""
            kind_of_module[path] = "integration" if _STARTS_PROCESSES.search(text) else "unit"
        if item.get_closest_marker("real") is None:
            item.add_marker(kind_of_module[path])
        try:
            rel = path.relative_to(ROOT).as_posix()
        except ValueError:
            rel = path.as_posix()
        name = getattr(item, "originalname", None) or item.name.split("[")[0]
        if f"{rel}::{name}" in slow:
            item.add_marker("slow")


def pytest_runtest_setup(item):
    # Skipped here rather than by a mark: the summary then says it once for
    # all of them, not once per test function.
    if not REAL and item.get_closest_marker("real") is not None:
        pytest.skip("a real program's runs, slow: FASTENOUGH_REAL=1 runs them (CI does)")
    if not SLOW and item.get_closest_marker("slow") is not None:
        pytest.skip("15 s or more on two cores (tests/slow_tests.txt): FASTENOUGH_SLOW=1 runs "
                    "it (CI does)")
