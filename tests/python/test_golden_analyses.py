"""Golden tests: hand-written traces with hand-computed expected reports.

Every `tests/data/golden/NAME.json` is analysed with `fastenough analyze --json`
in a subprocess and compared with `NAME.expected.json` (partial match: keys
absent from the expected file are ignored; lists must have the same length;
integers exact, floats to 1e-9 relative). The arithmetic is in
tests/data/golden/README.md.

Also: every trace of the HTA corpus analyses without an error counter, with a
known number of devices and kernels per device (skipped without the corpus).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import DATA, run_cli

GOLDEN = DATA / "golden"
CASES = sorted(p for p in GOLDEN.glob("*.json") if not p.name.endswith(".expected.json"))


def _mismatches(expected, actual, path="$"):
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{path}.{key}: missing")
            else:
                out += _mismatches(value, actual[key], f"{path}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected a list of {len(expected)}, got {actual!r}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out += _mismatches(e, a, f"{path}[{i}]")
        return out
    if isinstance(expected, float) or isinstance(actual, float):
        if not isinstance(actual, (int, float)) or isinstance(actual, bool) or not math.isclose(
            expected, actual, rel_tol=1e-9, abs_tol=1e-9
        ):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return []
    if expected != actual or type(expected) is not type(actual):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def test_partial_match_can_fail():
    assert _mismatches({"a": 1}, {"a": 2})
    assert _mismatches({"a": [1, 2]}, {"a": [1]})
    assert _mismatches({"a": 0.5}, {"a": 0.6})
    assert _mismatches({"a": None}, {"a": 0})
    assert not _mismatches({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3})


def test_there_are_golden_cases():
    assert CASES, f"no golden traces in {GOLDEN}"


@pytest.mark.parametrize("trace", CASES, ids=lambda p: p.name)
def test_golden(trace: Path):
    expected = json.loads(trace.with_name(trace.name[: -len(".json")] + ".expected.json")
                          .read_text())
    proc = run_cli("analyze", "--json", "--no-progress", trace)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    problems = _mismatches(expected, report)
    assert not problems, "\n".join(problems)


# HTA corpus: file (relative to the corpus) -> kernel_count per (rank, device).
# Filled from the traces themselves (kernel events per device), so a change in
# the reader or the analyses that drops or invents kernels shows up here.
CORPUS_KERNELS: dict[str, dict[tuple[int, int], int]] = {}


def _corpus_traces(corpus: Path) -> list[Path]:
    return sorted(
        p for p in corpus.rglob("*")
        if p.is_file() and (p.name.endswith(".json") or p.name.endswith(".json.gz"))
    )
