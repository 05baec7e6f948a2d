"""Shared pytest fixtures: paths to test data and the HTA corpus, a helper
that runs the real `fastenough` command line in a subprocess, and the check of
the report invariants (tests/report_invariants.py) on every report a test
produces: `run_cli(..., "--json")` output, and every report.json written under
a test's temporary directories (each test's own, and at the end of the session
all of them).

The tests are grouped by the room they test, one folder each (ab, agent,
checks, cli, compare, decide, diff, inputs, lint, mcp, measure, project,
render, replay, report, run, store, trace); the helpers several rooms share
(run_cli and the fixtures here, agent_run_helper.py, report_docs.py, ...) stay
in this folder, which pytest puts on sys.path when it loads this conftest
(import mode prepend), so `from conftest import run_cli` works from any folder.
pytest imports a test module by its file name (no __init__.py): names stay
unique across the folders, and a test module imports another only from its own
folder (test_analyze_dask from test_rank_summaries, test_report_model from
test_report_schema)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from report_invariants import violations  # noqa: E402

DATA = REPO / "tests" / "data"
CORPUS = Path(os.environ.get("FASTENOUGH_CORPUS", REPO.parent / "shared" / "corpus" / "hta"))


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"HTA trace corpus not found at {CORPUS} (set FASTENOUGH_CORPUS)")
    return CORPUS


def run_cli(*args: str, cwd: str | os.PathLike | None = None, env: dict | None = None,
            timeout: float = 300, input: str | None = None) -> subprocess.CompletedProcess:
    """Run `python -m fastenough ARGS` and capture its output."""
    full_env = dict(os.environ)
    full_env.setdefault("COLUMNS", "160")
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "fastenough", *map(str, args)],
        cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout, input=input,
    )
    if "--json" in map(str, args) and proc.stdout.lstrip().startswith("{"):
        check_report_text(proc.stdout, f"fastenough {' '.join(map(str, args))}")
    return proc


_CHECKED: set[str] = set()


def check_report_text(text: str, what: str) -> None:
    import json

    try:
        doc = json.loads(text)
    except ValueError:
        return
    if isinstance(doc, dict) and doc.get("schema") == "fastenough.report/1":
        found = violations(doc)
        assert not found, f"report invariants broken by {what}:\n" + "\n".join(found)


def check_report_files(root: Path) -> None:
    """Every report.json under root not checked before."""
    for path in sorted(root.rglob("report.json")):
        key = str(path)
        if key in _CHECKED or not path.is_file():
            continue
        _CHECKED.add(key)
        check_report_text(path.read_text(errors="replace"), str(path))


@pytest.fixture(autouse=True)
def _report_invariants_of_this_test(request):
    tmp = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if tmp is not None:
        check_report_files(tmp)


@pytest.fixture(scope="session", autouse=True)
def _report_invariants_of_the_session(tmp_path_factory):
    yield
    # Reports written by module- and session-scoped fixtures too.
    check_report_files(tmp_path_factory.getbasetemp())


@pytest.fixture
def cli():
    return run_cli
