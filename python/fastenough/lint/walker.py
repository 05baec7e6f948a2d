"""Find the Python files under the given paths and lint them on threads in the C++ core.

Discovery is here (a stable order, other people's code skipped); reading,
parsing and the rules run in C++ with the GIL released, one thread per core by
default. Results come back sorted by path, so the output does not depend on the
scheduling.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastenough import _core
from fastenough.errors import InputNotFoundError
from fastenough.lint.finding import FileError, LintFinding

# Directories that hold other people's code or build output, never the user's.
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox",
             "node_modules", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache",
             "build", "dist", ".eggs", ".fastenough"}

Progress = Callable[[int, int], None]


@dataclass
class LintResult:
    files: int = 0
    findings: list[LintFinding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    bytes: int = 0


def discover(paths: list[str]) -> list[str]:
    """The .py files named or under the directories named, in a stable order."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_file():
            out.append(str(path))
        elif path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(
                    ".egg-info"))
                out.extend(os.path.join(root, f) for f in sorted(files)
                           if f.endswith(".py"))
        elif os.path.lexists(p):
            # There, but nothing lint reads (a FIFO would block the reader): exit 2
            # naming what it is, in the words every input is refused with.
            from fastenough.inputs.input_file import require_regular_file

            require_regular_file(p)
            out.append(str(path))  # it became a regular file meanwhile
        else:
            raise InputNotFoundError(f"{p}: no such file or directory")
    return out


def lint_files(paths: list[str], codes: set[str] | frozenset[str] | None, jobs: int = 0,
               progress: Progress | None = None) -> LintResult:
    """Lint these files; `codes` limits the rules (None: all); jobs 0: one thread per core."""
    r = _core.lint_files(list(paths), None if codes is None else sorted(codes), jobs, progress)
    return LintResult(files=r["files"], bytes=r["bytes"],
                      findings=[LintFinding(*f) for f in r["findings"]],
                      errors=[FileError(*e) for e in r["errors"]])


def lint_paths(paths: list[str], codes: set[str] | None = None, jobs: int = 0,
               progress: Progress | None = None) -> LintResult:
    """Lint every Python file under `paths`; `codes` limits the rules (None: all)."""
    return lint_files(discover(paths), codes, jobs, progress)
