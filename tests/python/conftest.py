"""Shared pytest fixtures: paths to test data and the HTA corpus, and a helper
that runs the real `fastenough` command line in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
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
    return subprocess.run(
        [sys.executable, "-m", "fastenough", *map(str, args)],
        cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout, input=input,
    )


@pytest.fixture
def cli():
    return run_cli
