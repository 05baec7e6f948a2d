#!/usr/bin/env python3
"""The C++ Python parser against CPython's `ast`, node by node, over real code.

Every .py file under the given directories (default: this interpreter's
site-packages and the standard library) is parsed by both; their dumps
(cpp/fastenough/pysrc/dump.h, tests/python/pysrc_dump.py) must be equal line for
line. Prints the counts and the first differences:

  agree          both parsed, same tree, same positions
  differ         both parsed, trees differ (a parser bug)
  cpp-rejects    CPython parsed it, the C++ parser did not (a parser bug)
  cpp-accepts    CPython refused it, the C++ parser did not (it checks less)
  both-reject    neither parsed it

  python bench/pysrc_differential.py                  # site-packages + stdlib
  python bench/pysrc_differential.py DIR ... --show 20
  python bench/pysrc_differential.py --limit 2000     # the first 2000 files
Exit status 1 when any file differs or is rejected by the C++ parser only.
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "python"))

from pysrc_dump import cpython_dump, first_difference, normalise  # noqa: E402


def _files(dirs: list[str]) -> list[str]:
    """The .py files under `dirs`, each once (site-packages lies inside the stdlib
    directory of a pyenv or venv Python)."""
    out, seen = [], set()
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for f in sorted(files):
                path = os.path.join(root, f)
                if f.endswith(".py") and os.path.realpath(path) not in seen:
                    seen.add(os.path.realpath(path))
                    out.append(path)
    return out


def check_file(path: str) -> tuple[str, str, str]:
    from fastenough import _core

    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return path, "skipped", ""
    text = text.removeprefix("\ufeff")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = cpython_dump(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        expected = None
        why = f"{type(e).__name__}: {e}"
    dump, error = _core.pysrc_dump(text)
    if expected is None:
        return path, ("both-reject" if dump is None else "cpp-accepts"), why
    if dump is None:
        return path, "cpp-rejects", f"line {error['line']}:{error['col']}: {error['message']}"
    diff = first_difference(expected, normalise(dump))
    return path, ("agree" if diff is None else "differ"), diff or ""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="*")
    p.add_argument("--limit", type=int, default=0, help="check only the first N files")
    p.add_argument("--show", type=int, default=10, help="differences to print (default 10)")
    p.add_argument("--jobs", type=int, default=0)
    args = p.parse_args()
    dirs = args.dirs or [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"]]
    files = _files(dirs)
    if args.limit:
        files = files[:args.limit]
    t0 = time.perf_counter()
    counts: dict[str, int] = {}
    shown: dict[str, int] = {}
    with ProcessPoolExecutor(max_workers=args.jobs or os.cpu_count()) as pool:
        for path, verdict, detail in pool.map(check_file, files, chunksize=32):
            counts[verdict] = counts.get(verdict, 0) + 1
            if verdict in ("differ", "cpp-rejects", "cpp-accepts") and \
                    shown.get(verdict, 0) < args.show:
                shown[verdict] = shown.get(verdict, 0) + 1
                print(f"== {verdict}: {path}\n{detail}\n")
    print(f"{len(files)} files in {time.perf_counter() - t0:.0f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("differ") or counts.get("cpp-rejects") else 0


if __name__ == "__main__":
    sys.exit(main())
