"""The corpus of real programs nobody on the team wrote (tests/real/corpus:
pytorch/examples, nanoGPT, minGPT, timm, and drivers in the style of
Lightning, diffusers, transformers, sentence-transformers and PyG), each run
plain and under `fastenough run --quiet --no-history`: the tool must not change
what the program does. Per program: the plain run exits 0; the tool's run exits
the same, prints the same stdout (after the program's masks for timings), the
same number of the program's own warning lines on stderr, no traceback, the
same bytes in the files it names (same_files); and the run directory has its
report.json. What the tool should find in each is for
other tests."""

from __future__ import annotations

import pytest
from catalog import CORPUS_PROGRAMS, warning_lines
from real_pairs import pairs  # noqa: F401 - the fixture

# Known failures of the tool on a corpus program: name -> what was seen. They
# stay xfail(strict=False) until the tool is fixed (the lead's issues).
TOOL_XFAIL: dict[str, str] = {}


def params() -> list:
    out = []
    for p in CORPUS_PROGRAMS:
        marks = [pytest.mark.xfail(strict=False, reason=TOOL_XFAIL[p.name])] \
            if p.name in TOOL_XFAIL else []
        out.append(pytest.param(p.name, marks=marks, id=p.name))
    return out


@pytest.mark.parametrize("name", params())
def test_same_behaviour_plain_and_under_the_tool(pairs, name):
    pair = pairs(name)
    program, p, t = pair.program, pair.plain, pair.tool
    assert p.returncode == 0, ("plain run failed", p.stderr[-3000:])
    assert t.returncode == p.returncode, ("exit status differs", t.stderr[-3000:])
    assert "Traceback" not in t.stderr, t.stderr[-3000:]
    assert program.normalised_stdout(t.stdout) == program.normalised_stdout(p.stdout), \
        ("stdout differs", p.stdout[-2000:], t.stdout[-2000:], t.stderr[-2000:])
    pw, tw = warning_lines(p.stderr), warning_lines(t.stderr)
    assert len(tw) == len(pw), ("warnings differ", pw, tw)
    for f in program.same_files:
        assert (pair.tool_dir / f).read_bytes() == (pair.plain_dir / f).read_bytes(), f
    assert (pair.run_dir / "report.json").exists(), sorted(pair.run_dir.glob("*"))


def test_corpus_names_unique_and_described():
    names = [p.name for p in CORPUS_PROGRAMS]
    assert len(names) == len(set(names))
    for p in CORPUS_PROGRAMS:
        assert (p.root / p.argv[0]).exists(), p
        assert (p.root / "README.md").exists(), p  # origin, commit, every change
        if p.root.name != "drivers":
            assert (p.root / "LICENSE").exists(), p
