#!/usr/bin/env python3
"""Benchmark `fastenough lint` against `ruff check --select ALL` on the same tree.

The tree (default 10,000 files) is generated into a temporary directory, or
taken from --tree: copies of realistic research code (the lint fixtures under
tests/data/lint/research, the demo workload) and of this project's own Python
modules, each copy made distinct (a renamed function, a comment with its index)
so that no tool can deduplicate them, spread over nested packages of 100 files.

Then, interleaved (lint, ruff, ruff, lint, ...) and timed from outside as child
processes with their output sent to /dev/null:

  lint   python -m fastenough lint TREE --exit-zero --format json --jobs J
  ruff   ruff check --select ALL --no-cache --exit-zero --output-format json TREE
  parse  this script --parse-only TREE --jobs J: read + ast.parse of every file in
         J processes and nothing else, the floor of any ast-based linter in CPython

Medians of --reps are printed with the ratio lint / ruff (ruff is a speed
reference, not a peer in function: it is Rust and runs ~900 rules; lint runs 17
rules that follow loops across functions, in C++ over its own parser of Python,
on threads). "parse" is what CPython alone needs to build `ast` trees of the
tree: the floor of any linter written over Python's `ast` (lint was one before
its rules moved to C++). The whole-process times include Python's start-up and
the import of fastenough (~0.2 s). The issue's goal is 10k files in a few
seconds on two cores. Results also go to bench/out/bench_lint.json.

  python bench/bench_lint.py                  # 10k files, 3 reps, jobs = cores
  python bench/bench_lint.py --files 2000 --reps 5 --jobs 2
  python bench/bench_lint.py --tree ~/src/some-research-repo
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def _sources() -> list[tuple[str, str]]:
    paths = sorted(glob.glob(os.path.join(REPO, "tests", "data", "lint", "research", "*.py")))
    paths.append(os.path.join(REPO, "python", "fastenough", "demo", "workload.py"))
    paths += sorted(glob.glob(os.path.join(REPO, "python", "fastenough", "**", "*.py"),
                              recursive=True))
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            out.append((os.path.basename(p)[:-3], f.read()))
    return out


def make_tree(root: str, n: int) -> int:
    sources = _sources()
    total = 0
    for i in range(n):
        name, text = sources[i % len(sources)]
        # Distinct copies: every top-level def gets the copy's index as a suffix.
        text = re.sub(r"^def (\w+)\(", rf"def \1_{i}(", text, flags=re.M)
        text = f"# generated copy {i} of {name}.py for bench_lint\n" + text
        pkg = os.path.join(root, f"pkg{i // 1000:02d}", f"sub{(i // 100) % 10}")
        os.makedirs(pkg, exist_ok=True)
        with open(os.path.join(pkg, f"{name}_{i}.py"), "w", encoding="utf-8") as f:
            f.write(text)
        total += len(text.encode())
    return total


def _parse_one(path: str) -> int:
    import ast

    with open(path, "rb") as f:
        data = f.read()
    try:
        ast.parse(data.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return 0
    return 1


def parse_only(tree: str, jobs: int) -> int:
    from concurrent.futures import ProcessPoolExecutor

    paths = [os.path.join(d, f) for d, _, fs in os.walk(tree) for f in fs if f.endswith(".py")]
    with ProcessPoolExecutor(max_workers=jobs or os.cpu_count()) as pool:
        return sum(pool.map(_parse_one, paths, chunksize=64))


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", type=int, default=10000, help="files to generate (default 10000)")
    p.add_argument("--tree", default=None, help="lint this tree instead of generating one")
    p.add_argument("--reps", type=int, default=3, help="repetitions of each tool (default 3)")
    p.add_argument("--jobs", type=int, default=0, help="lint --jobs (default 0: one per core)")
    p.add_argument("--ruff", default=shutil.which("ruff") or os.path.join(
        os.path.dirname(sys.executable), "ruff"), help="the ruff executable")
    p.add_argument("--parse-only", metavar="TREE", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.parse_only:
        parse_only(args.parse_only, args.jobs)
        return 0

    tmp = None
    if args.tree:
        tree = args.tree
        nbytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tree)
                     for f in fs if f.endswith(".py"))
    else:
        tmp = tempfile.mkdtemp(prefix="bench_lint_")
        tree = tmp
        nbytes = make_tree(tree, args.files)
    nfiles = sum(f.endswith(".py") for _, _, fs in os.walk(tree) for f in fs)
    lint = [sys.executable, "-m", "fastenough", "lint", tree, "--exit-zero", "--format",
            "json", "--jobs", str(args.jobs)]
    ruff = [args.ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero",
            "--output-format", "json", tree]
    parse = [sys.executable, os.path.abspath(__file__), "--parse-only", tree, "--jobs",
             str(args.jobs)]
    cmds = {"lint": lint, "ruff": ruff, "parse": parse}
    try:
        count = json.loads(subprocess.run(lint, capture_output=True, text=True).stdout)
        times = {k: [] for k in cmds}
        for r in range(args.reps):
            order = list(cmds) if r % 2 == 0 else list(reversed(cmds))
            for tool in order:
                times[tool].append(_time(cmds[tool]))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["lint"] / med["ruff"]
    print(f"tree: {nfiles} files, {nbytes / 1e6:.1f} MB; cores: {os.cpu_count()}; "
          f"lint found {len(count['findings'])} findings, skipped {len(count['errors'])} files")
    for k in cmds:
        print(f"  {k:<5} median {med[k]:7.2f} s   runs {', '.join(f'{t:.2f}' for t in times[k])}")
    print(f"  ratio lint / ruff = {ratio:.2f}x; lint / parse floor = "
          f"{med['lint'] / med['parse']:.2f}x; lint {nfiles / med['lint']:.0f} files/s")
    out_dir = os.path.join(HERE, "out")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "bench_lint.json"), "w") as f:
        json.dump({"files": nfiles, "bytes": nbytes, "cores": os.cpu_count(), "times_s": times,
                   "median_s": med, "ratio_lint_over_ruff": ratio,
                   "ratio_lint_over_parse": med["lint"] / med["parse"]}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
