"""Test selection shared by tests/python and tests/real (the fixtures live in
tests/python/conftest.py, which owns the module name `conftest` for the tests'
imports; this file only adds hooks).

The `real` marker: runs of real programs (plain and under `fastenough run`),
the slow part of the suite. The default `bash scripts/test.sh` skips them,
naming why, so that it stays within 30 minutes on two cores; CI (.ci/run) runs
them with FASTENOUGH_REAL=1, and so does anyone who sets it.
"""

from __future__ import annotations

import os

import pytest

REAL = os.environ.get("FASTENOUGH_REAL") == "1"


def pytest_runtest_setup(item):
    # Skipped here rather than by a mark: the summary then says it once for
    # all of them, not once per test function.
    if not REAL and item.get_closest_marker("real") is not None:
        pytest.skip("a real program's runs, slow: FASTENOUGH_REAL=1 runs them (CI does)")
