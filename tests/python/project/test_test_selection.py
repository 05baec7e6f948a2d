"""The suite's own selection (conftest.py at the root): every test named in
tests/slow_tests.txt exists, so that the list cannot silently stop marking
anything, and the markers the hooks give are registered."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_every_slow_test_listed_exists():
    lines = (REPO / "tests" / "slow_tests.txt").read_text().splitlines()
    entries = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    assert entries
    missing = []
    for entry in entries:
        file, _, name = entry.partition("::")
        path = REPO / file
        if not path.is_file() or not re.search(rf"^def {re.escape(name)}\(", path.read_text(),
                                               re.M):
            missing.append(entry)
    assert not missing, f"tests/slow_tests.txt names tests that do not exist: {missing}"


def test_the_markers_the_hooks_give_are_registered():
    text = (REPO / "pyproject.toml").read_text()
    block = text.split("markers = [", 1)[1].split("]", 1)[0]
    markers = set(re.findall(r'^\s*"(\w+):', block, re.M))
    assert {"unit", "integration", "slow", "real"} <= markers


def test_every_slow_test_listed_is_collected():
    """Each FILE::FUNCTION of tests/slow_tests.txt is a node id pytest collects (or
    the prefix of its parametrisations): a file moved or a test renamed without its
    line would otherwise stop being marked slow and run in the fast default."""
    import subprocess
    import sys

    lines = (REPO / "tests" / "slow_tests.txt").read_text().splitlines()
    entries = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    files = sorted({f for f in (e.partition("::")[0] for e in entries) if (REPO / f).is_file()})
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                        "-p", "no:cacheprovider", *files],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    ids = {ln.split("[", 1)[0] for ln in r.stdout.splitlines() if "::" in ln}
    missing = [e for e in entries if e not in ids]
    assert not missing, f"tests/slow_tests.txt names tests pytest does not collect: {missing}"


def test_every_test_module_is_in_a_room_folder():
    """tests/python holds helpers and one folder per room; a test module directly in
    it, or two test modules of one name (pytest imports them by file name), is
    refused here rather than found by a confusing import error."""
    top = sorted(p.name for p in (REPO / "tests" / "python").glob("test_*.py"))
    assert not top, f"put these in the folder of the room they test: {top}"
    names = [p.name for p in (REPO / "tests" / "python").rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
