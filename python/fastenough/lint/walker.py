"""Find the Python files under the given paths and lint them, in parallel processes.

Parsing is CPU-bound Python, so threads would not help; for more than a few
dozen files the work is split into chunks across a process pool (one process
per core by default). Results are sorted by path, so the output does not depend
on the scheduling.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from fastenough.errors import InputNotFoundError
from fastenough.lint.check import check_text, decode
from fastenough.lint.finding import FileError, LintFinding

# Directories that hold other people's code or build output, never the user's.
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox",
             "node_modules", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache",
             "build", "dist", ".eggs", ".fastenough"}
_PARALLEL_FROM = 64  # below this many files a pool costs more than it saves
_CHUNK = 64


@dataclass
class LintResult:
    files: int = 0
    findings: list[LintFinding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


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
        else:
            raise InputNotFoundError(f"{p}: no such file or directory")
    return out


def lint_files(paths: list[str], codes: frozenset[str] | None
               ) -> tuple[list[LintFinding], list[FileError]]:
    """Lint these files in this process; `codes` limits the rules (None: all)."""
    from fastenough.lint.rules import ALL_RULES

    rules = None if codes is None else [r for r in ALL_RULES if r.code in codes]
    findings: list[LintFinding] = []
    errors: list[FileError] = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            errors.append(FileError(path, 0, f"cannot read: {e.strerror}: skipped"))
            continue
        text, err = decode(path, data)
        if err is not None:
            errors.append(err)
            continue
        found, err = check_text(path, text, rules)
        findings.extend(found)
        if err is not None:
            errors.append(err)
    return findings, errors


def lint_paths(paths: list[str], codes: set[str] | None = None, jobs: int = 0) -> LintResult:
    """Lint every Python file under `paths`; `codes` limits the rules (None: all)."""
    files = discover(paths)
    frozen = None if codes is None else frozenset(codes)
    result = LintResult(files=len(files))
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(files) < _PARALLEL_FROM:
        result.findings, result.errors = lint_files(files, frozen)
    else:
        chunks = [files[i:i + _CHUNK] for i in range(0, len(files), _CHUNK)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for found, errs in pool.map(lint_files, chunks, [frozen] * len(chunks)):
                result.findings.extend(found)
                result.errors.extend(errs)
    result.findings.sort()
    result.errors.sort()
    return result
