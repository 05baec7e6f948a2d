"""The fixes of bench/calibrate_savings.py (tests/real/programs/fixes/<program>/<code>.patch
and tests/real/corpus/<folder>/fixes/<program>/<code>.patch, one per avoidable finding a
real program gets) still apply to the programs they fix,
so that the calibration of savings against `fastenough ab` does not rot when a
program changes. Not timed: each patch is applied to a copy with GNU patch, exact context."""

from __future__ import annotations

import importlib.util
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXES = ROOT / "tests" / "real" / "programs" / "fixes"


def _bench():
    spec = importlib.util.spec_from_file_location("calibrate_savings",
                                                  ROOT / "bench" / "calibrate_savings.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()
CASES = {c.program: c for c in BENCH.CASES}
# every fix kept beside a real program: the team's and the corpus's folders
PATCHES = sorted([*FIXES.glob("*/*.patch"),
                  *(ROOT / "tests" / "real" / "corpus").glob("*/fixes/*/*.patch")])


def test_every_case_has_its_patches_and_every_patch_a_case():
    assert PATCHES, FIXES
    expected = {(c.fixes, c.program, code) for c in CASES.values() for code in c.codes}
    present = {(p.parent.parent, p.parent.name, p.stem) for p in PATCHES}
    assert present == expected
    for c in CASES.values():  # a corpus program's fixes are beside it
        assert c.fixes == FIXES or c.fixes.parent == c.src, c


@pytest.mark.parametrize("patch", PATCHES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fix_patch_applies(patch: Path, tmp_path: Path):
    case = CASES[patch.parent.name]
    touched = [ln[len("+++ b/"):].strip() for ln in patch.read_text().splitlines()
               if ln.startswith("+++ b/")]
    assert touched and set(touched) <= set(case.files), (touched, case.files)
    for f in case.files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(case.src / f, tmp_path / f)
    p = subprocess.run(["patch", "-p1", "--fuzz=0", "--batch", "--forward",
                        "--no-backup-if-mismatch", "-i", str(patch)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0, f"{patch.relative_to(ROOT)} no longer applies: {p.stdout}"
    for f in touched:
        assert (tmp_path / f).read_bytes() != (case.src / f).read_bytes(), f
        py_compile.compile(str(tmp_path / f), doraise=True)
    # the bench's own preparation gives the same files, also inside this
    # repository's tree (where bench/out is)
    dest = BENCH.prepare(case, patch.stem, tmp_path / "bench")
    for f in touched:
        assert (dest / f).read_bytes() == (tmp_path / f).read_bytes(), f
