#!/usr/bin/env python3
"""Compare the findings of the C++ lint with a reference lint on a tree of files.

The reference is the Python-`ast` implementation of `fastenough lint` as it was
before the rules moved to C++ (extract it from git: `git archive 0830c59
python/fastenough | tar -x -C /tmp/lintref`); it runs in a child `python -S` so
that the installed fastenough does not shadow it. The C++ side runs the
`lint_files` tool (cpp/tools/lint_files_main.cc, built with the core).

Findings are compared whole (path, line, col, code, rule, message, end, function,
source line); skipped files by path only (CPython's syntax error messages are
not ours to copy). Prints per-rule counts and the first differences; exit 1 when
anything differs.

  python bench/lint_differential.py --reference /tmp/lintref/python \\
      --tool build/cp311-cp311-linux_x86_64/cpp/tools/lint_files tests/data/lint
  ... --select sync-in-loop,transfer-in-loop  PATHS   (rule subsets)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

_REFERENCE = r"""
import json, sys
from fastenough.lint.walker import lint_paths
codes = json.loads(sys.argv[1])
r = lint_paths(sys.stdin.read().splitlines(), None if codes is None else set(codes),
               jobs=int(%JOBS%))
for f in r.findings:
    print(json.dumps(dict(kind="finding", **f.to_dict())))
for e in r.errors:
    print(json.dumps(dict(kind="error", **e.to_dict())))
"""

FIELDS = ("path", "line", "col", "code", "rule", "message", "end_line", "end_col",
          "function", "source_line")


def _discover(reference: str, paths: list[str]) -> list[str]:
    code = ("import sys, json; from fastenough.lint.walker import discover; "
            "print(json.dumps(discover(sys.stdin.read().splitlines())))")
    out = subprocess.run([sys.executable, "-S", "-c", code], input="\n".join(paths),
                         capture_output=True,
                         text=True, check=True, env=dict(os.environ, PYTHONPATH=reference))
    return json.loads(out.stdout)


def _parse(lines: str) -> tuple[set[tuple], set[str]]:
    findings, errors = set(), set()
    for line in lines.splitlines():
        d = json.loads(line)
        if d["kind"] == "finding":
            findings.add(tuple(d[k] for k in FIELDS))
        else:
            errors.add(d["path"])
    return findings, errors


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+")
    p.add_argument("--reference", required=True, help="directory holding the reference "
                   "fastenough package (its python/ folder)")
    p.add_argument("--tool", required=True, help="the lint_files executable")
    p.add_argument("--select", default=None, help="comma-separated codes (default: all)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--show", type=int, default=10, help="differences to print per side")
    args = p.parse_args()

    codes = None if args.select is None else [c for c in args.select.split(",") if c]
    files = _discover(args.reference, args.paths)
    ref = subprocess.run([sys.executable, "-S", "-c",
                          _REFERENCE.replace("%JOBS%", str(args.jobs)), json.dumps(codes)],
                         input="\n".join(files), capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=args.reference))
    if ref.returncode != 0:
        print(ref.stderr, file=sys.stderr)
        return 2
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as lst:
        lst.write("\n".join(files) + "\n")
    try:
        cmd = [args.tool, "--threads", str(args.jobs), "--list", lst.name]
        if codes is not None:
            cmd += ["--select", ",".join(codes)]
        cpp = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(lst.name)
    if cpp.returncode != 0:
        print(cpp.stderr, file=sys.stderr)
        return 2
    ref_f, ref_e = _parse(ref.stdout)
    cpp_f, cpp_e = _parse(cpp.stdout)

    per_rule = collections.Counter(f[4] for f in ref_f)
    cpp_rule = collections.Counter(f[4] for f in cpp_f)
    print(f"{len(files)} files; findings: reference {len(ref_f)}, C++ {len(cpp_f)}, "
          f"equal {len(ref_f & cpp_f)}; skipped: reference {len(ref_e)}, C++ {len(cpp_e)}")
    for rule in sorted(set(per_rule) | set(cpp_rule)):
        mark = "" if per_rule[rule] == cpp_rule[rule] else "   <- differs"
        print(f"  {rule:<38} reference {per_rule[rule]:5d}   C++ {cpp_rule[rule]:5d}{mark}")
    for name, only in (("only in reference", ref_f - cpp_f), ("only in C++", cpp_f - ref_f)):
        for f in sorted(only)[: args.show]:
            print(f"{name}: {f[0]}:{f[1]}:{f[2]} [{f[4]}] {f[5]!r} end={f[6]}:{f[7]} "
                  f"fn={f[8]!r}")
        if len(only) > args.show:
            print(f"{name}: ... {len(only) - args.show} more")
    for name, only in (("skipped only by reference", ref_e - cpp_e),
                       ("skipped only by C++", cpp_e - ref_e)):
        for path in sorted(only)[: args.show]:
            print(f"{name}: {path}")
    same = ref_f == cpp_f and ref_e == cpp_e
    print("identical" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
