"""`fastenough compare A B`: do two runs' recorded outputs agree, key by key?

The comparison is C++ over memory-mapped files (cpp/fastenough/compare/); this
module parses the options, calls fastenough.compare_paths and prints the result.
Exit 0 when bitwise equal or within tolerance, 1 when they differ, 2 for bad input.

JSON schema `fastenough.compare/1` (--json):
  {"schema": "fastenough.compare/1",
   "verdict": "bitwise-equal" | "within-tolerance" | "differs",
   "a"/"b": {"path": str (the file or folder read), "files": int, "keys": int, "bytes": int},
   "rules": {"exact": bool, "nan_equal": bool,
             "tolerances": {"f64"|"f32"|"f16"|"bf16": {"atol", "rtol", "ulp"}}},
   "counts": {"paired", "bitwise_equal", "within_tolerance", "differs",
              "shape_or_dtype_mismatch", "missing", "extra"},
   "missing": [keys in A only], "extra": [keys in B only],
   "worst": [key entry, worst first; only keys that are not bitwise equal; --top of them],
   "keys": [key entry for every paired key, sorted by key]}
  key entry: {"key", "verdict", "mismatch": null | "shape" | "dtype", "dtype", "dtype_b",
   "shape", "shape_b", "elements", "not_bitwise", "beyond_tolerance", "nan_mismatch",
   "inf_mismatch", "max_abs", "max_rel" (number, or "inf" when A is 0 where B is not),
   "max_ulp" (null for integers, bool and mismatches), "worst": null | {"index" (flat,
   C order), "a", "b" (numbers, or "nan" / "inf" / "-inf"), "beyond_tolerance"},
   "file_a", "file_b"}
"""

from __future__ import annotations

import argparse
import sys

from fastenough.errors import EXIT_FINDINGS_OR_COUNTERS, EXIT_OK, UsageError
from fastenough.inputs.numbers import check_float, check_whole, whole_number
from fastenough.outputs import json_output
from fastenough.visible import visible

# The core counts ULPs in a uint64; a float64 pair is at most 2**63 apart.
MAX_ULP = 2**63 - 1

HELP = "do two runs' recorded outputs agree, item by item?"

EPILOG = """\
examples:
  fastenough compare .fastenough/runs/RUN_A .fastenough/runs/RUN_B
  fastenough compare baseline/outputs candidate/outputs --rtol 1e-4
  fastenough compare a.safetensors b.safetensors --atol bf16=1e-2 --ulp 4
  fastenough compare ref.npz new.npz --exact --json

A and B: run directories (their outputs/, written by fastenough.record),
outputs/ folders (every .safetensors, .npy and .npz below them), or single
files. A is the reference. Tensors are paired by key: a safetensors tensor's
name, an .npz member's name, a file's path without extension inside a folder
("rank1/scores").

An element is within tolerance when |a - b| <= atol + rtol * |a|, or (with
--ulp N) when it is at most N units in the last place from a. Defaults per
dtype, as torch.testing.assert_close:
  f64   atol 1e-7   rtol 1e-7      (tightest)
  f32   atol 1e-5   rtol 1.3e-6
  f16   atol 1e-5   rtol 1e-3
  bf16  atol 1e-5   rtol 1.6e-2    (loosest)
  ULP test off (--ulp 0); integers and bool always exact.
--atol/--rtol/--ulp X set every float dtype; DTYPE=X (repeatable) sets one.

Special values:
  NaN is never equal to anything, not even a NaN in the same place, unless
  --nan-equal (then any NaN matches any NaN). An infinity matches only itself.
  -0.0 and 0.0 are equal (within tolerance, not bitwise) unless --exact.
  --exact: any difference in bits is a difference, whatever the tolerances.

Verdict: "bitwise equal" (every byte the same, no NaN), "within tolerance", or
"differs" (some element beyond tolerance, a shape or dtype mismatch, a key
missing on one side). The worst keys are listed by name: one bad item among a
thousand good ones is named even when the mean of all is the same.
Exit status: 0 equal or within tolerance, 1 differs, 2 unreadable input (a
truncated or corrupt file is named with the byte offset).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="reference: run directory, outputs/ folder or file")
    p.add_argument("b", metavar="B", help="candidate: run directory, outputs/ folder or file")
    p.add_argument("--atol", action="append", default=[], metavar="[DTYPE=]X",
                   help="absolute tolerance (default per dtype, see below)")
    p.add_argument("--rtol", action="append", default=[], metavar="[DTYPE=]X",
                   help="relative tolerance, of |a| (default per dtype, see below)")
    p.add_argument("--ulp", action="append", default=[], metavar="[DTYPE=]N",
                   help="also accept elements within N units in the last place (default 0: off)")
    p.add_argument("--exact", action="store_true",
                   help="bitwise: any difference counts, -0.0 vs 0.0 included")
    p.add_argument("--nan-equal", action="store_true",
                   help="a NaN matches a NaN in the same place (default: NaN never equal)")
    p.add_argument("--top", type=whole_number(0), default=10, metavar="N",
                   help="how many of the worst keys to list (default 10)")
    p.add_argument("--json", action="store_true", help="print fastenough.compare/1 JSON")
    p.set_defaults(func=run)


def _parse_tolerances(args: argparse.Namespace) -> tuple[dict, dict]:
    """--atol 1e-3 --atol bf16=1e-2 -> ({"atol": 1e-3}, {"bf16": {"atol": 1e-2}})."""
    from fastenough.compare import FLOAT_DTYPES

    common: dict = {}
    per: dict[str, dict] = {}
    for field, values in (("atol", args.atol), ("rtol", args.rtol), ("ulp", args.ulp)):
        for text in values:
            dtype, sep, number = text.rpartition("=")
            if field == "ulp":
                value = check_whole(number, f"--ulp {visible(text)}: N", 0, MAX_ULP)
            else:
                value = check_float(number, f"--{field} {visible(text)}: X", 0)
            if not sep:
                common[field] = value
            elif dtype in FLOAT_DTYPES:
                per.setdefault(dtype, {})[field] = value
            else:
                raise UsageError(f"--{field} {text!r}: {dtype!r} is not one of "
                                 f"{', '.join(FLOAT_DTYPES)} (integers are always exact)")
    return common, per


def run(args: argparse.Namespace) -> int:
    from fastenough.compare import compare_paths

    common, per = _parse_tolerances(args)
    result = compare_paths(args.a, args.b, exact=args.exact, nan_equal=args.nan_equal,
                           top=args.top, **common, **per)
    if args.json:
        json_output.dump(result)
    else:
        sys.stdout.write(visible(render_text(result), keep_newlines=True))
    return EXIT_FINDINGS_OR_COUNTERS if result["verdict"] == "differs" else EXIT_OK


_VERDICT = {"bitwise-equal": "bitwise equal", "within-tolerance": "within tolerance",
            "differs": "DIFFERS"}


def _num(v) -> str:
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.4g}"


def _exact(v) -> str:
    if isinstance(v, str):
        return v
    return str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(float(v))


def _index(flat: int, shape: list[int]) -> str:
    """Flat C-order index -> [i, j, ...] (what a user would type to look)."""
    if not shape:
        return "[]"
    out = []
    for d in reversed(shape):
        out.append(flat % d if d else 0)
        flat = flat // d if d else 0
    return "[" + ", ".join(str(i) for i in reversed(out)) + "]"


def _key_line(k: dict) -> str:
    shape = "x".join(str(d) for d in k["shape"]) or "scalar"
    if k["mismatch"] == "shape":
        return (f"  {k['key']}: shape {k['shape']} vs {k['shape_b']} ({k['dtype']})")
    if k["mismatch"] == "dtype":
        return f"  {k['key']}: dtype {k['dtype']} vs {k['dtype_b']} (shape {shape})"
    parts = [f"{k['beyond_tolerance']}/{k['elements']} beyond tolerance",
             f"max abs {_num(k['max_abs'])}", f"max rel {_num(k['max_rel'])}"]
    if k["max_ulp"] is not None:
        parts.append(f"max ulp {k['max_ulp']}")
    if k["nan_mismatch"]:
        parts.append(f"{k['nan_mismatch']} NaN mismatch")
    if k["inf_mismatch"]:
        parts.append(f"{k['inf_mismatch']} inf mismatch")
    w = k["worst"]
    if w is not None:
        # Full precision (shortest round-trip text): 3 digits would print "-67.7 vs -67.7".
        parts.append(f"worst at {_index(w['index'], k['shape'])}: {_exact(w['a'])} vs "
                     f"{_exact(w['b'])}")
    return f"  {k['key']} ({k['dtype']} {shape}): " + ", ".join(parts)


def _list(keys: list[str], limit: int = 10) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f", ... ({len(keys) - limit} more)" if len(keys) > limit else "")


def render_text(r: dict) -> str:
    c = r["counts"]
    lines = [f"A: {r['a']['path']} ({r['a']['keys']} keys, {r['a']['files']} files)",
             f"B: {r['b']['path']} ({r['b']['keys']} keys, {r['b']['files']} files)"]
    rules = []
    if r["rules"]["exact"]:
        rules.append("exact")
    if r["rules"]["nan_equal"]:
        rules.append("NaN equal")
    summary = (f"{c['paired']} keys paired: {c['bitwise_equal']} bitwise equal, "
               f"{c['within_tolerance']} within tolerance, {c['differs']} differ")
    if c["missing"] or c["extra"]:
        summary += f"; {c['missing']} only in A, {c['extra']} only in B"
    lines.append(f"Verdict: {_VERDICT[r['verdict']]}" + (f" ({', '.join(rules)})" if rules else ""))
    lines.append(summary)
    differ = [k for k in r["worst"] if k["verdict"] == "differs"]
    within = [k for k in r["worst"] if k["verdict"] == "within-tolerance"]
    if differ:
        lines.append("Worst keys beyond tolerance:")
        lines += [_key_line(k) for k in differ]
    if within:
        lines.append("Largest differences within tolerance:")
        lines += [_key_line(k) for k in within]
    shown = len(r["worst"])
    not_equal = c["within_tolerance"] + c["differs"]
    if shown < not_equal:
        lines.append(f"  ... {not_equal - shown} more keys not bitwise equal (--top, --json)")
    if r["missing"]:
        lines.append(f"Only in A (missing in B): {_list(r['missing'])}")
    if r["extra"]:
        lines.append(f"Only in B (extra): {_list(r['extra'])}")
    return "\n".join(lines) + "\n"
