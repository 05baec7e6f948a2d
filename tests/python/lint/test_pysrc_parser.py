"""The C++ Python parser (cpp/fastenough/pysrc/) against CPython's own `ast`, node by node.

The trees are compared as text (tests/python/pysrc_dump.py): kinds, fields in
`ast` order, names, operators, decoded constants and every position. The corpus
is real code: a syntax tour, this package, the lint fixtures, and the parts of
torch, transformers and the standard library that researchers' programs run
through. `python bench/pysrc_differential.py` runs the same over all of
site-packages and the stdlib (21k files; bench/README.md has the figures).
"""

from __future__ import annotations

import sysconfig
import warnings
from pathlib import Path

import pytest
from pysrc_dump import cpython_dump, first_difference, normalise

from fastenough import _core

ROOT = Path(__file__).resolve().parents[3]
PURELIB = Path(sysconfig.get_paths()["purelib"])
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _py_files(*dirs: Path) -> list[Path]:
    out: list[Path] = []
    for d in dirs:
        if d.is_dir():
            out += sorted(p for p in d.rglob("*.py"))
    return out


def _check(path: Path) -> str | None:
    text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cpython_dump(text)
    dump, error = _core.pysrc_dump(text)
    if dump is None:
        return f"{path}: the C++ parser refused it: {error}"
    diff = first_difference(expected, normalise(dump))
    return None if diff is None else f"{path}:\n{diff}"


def test_syntax_tour_agrees_with_cpython():
    assert _check(ROOT / "tests" / "data" / "pysrc" / "syntax_tour.py") is None


def test_own_sources_and_lint_fixtures_agree_with_cpython():
    files = _py_files(ROOT / "python" / "fastenough", ROOT / "tests" / "data" / "lint",
                      ROOT / "bench")
    assert len(files) > 100
    problems = [p for p in map(_check, files) if p is not None]
    assert problems == [], problems[:3]


@pytest.mark.parametrize("subdir", [
    "torch/nn", "torch/optim", "torch/utils/data", "torch/_dynamo",
    "transformers/models/llama", "transformers/models/bert", "transformers/generation",
    "sentence_transformers",
])
def test_library_code_agrees_with_cpython(subdir):
    base = PURELIB / subdir
    if not base.is_dir():
        pytest.skip(f"{subdir} is not installed")
    files = _py_files(base)
    problems = [p for p in map(_check, files) if p is not None]
    assert problems == [], problems[:3]


def test_standard_library_sample_agrees_with_cpython():
    files = [p for p in _py_files(STDLIB / "asyncio", STDLIB / "json", STDLIB / "email")]
    files += [STDLIB / name for name in ("typing.py", "dataclasses.py", "argparse.py",
                                         "inspect.py", "enum.py")]
    problems = [p for p in map(_check, files) if p is not None]
    assert problems == [], problems[:3]


@pytest.mark.parametrize("source, message", [
    ("x = (1,\n", "'(' was never closed"),
    ("print 'hello'\n", "invalid syntax"),
    ("if x:\npass\n", "expected an indented block after 'if' statement on line 1"),
    ("s = 'abc\n", "unterminated string literal (detected at line 1)"),
    ("a = 1\x00\n", "source code cannot contain null bytes"),
])
def test_syntax_errors_are_refused_with_a_message(source, message):
    dump, error = _core.pysrc_dump(source)
    assert dump is None
    assert error["message"] == message
    with pytest.raises((SyntaxError, ValueError)):
        compile(source, "x.py", "exec", flags=0x400)  # CPython refuses them too


def test_nesting_beyond_the_limit_is_refused_not_a_crash():
    dump, error = _core.pysrc_dump("x = " + "-" * 100_000 + "1\n")
    assert dump is None and error["too_deep"]
    dump, error = _core.pysrc_dump("x = 1" + " + 1" * 100_000 + "\n")
    assert dump is None and error["too_deep"]


def test_truncated_files_never_crash():
    # Every prefix of a real file either parses or gives an error; none crashes.
    text = (ROOT / "tests" / "data" / "pysrc" / "syntax_tour.py").read_text()
    refused = 0
    for cut in range(0, len(text), 7):
        dump, error = _core.pysrc_dump(text[:cut])
        assert (dump is None) != (error is None)
        refused += dump is None
    assert refused > 0
    assert _core.pysrc_dump(text)[1] is None
