"""Claimed vs measured (issue 37 item 1): what `fastenough run` claims fixing
train-mode-in-eval and autograd-in-eval saves on tests/data/eval_probe/bad.py
(a TransformerEncoder classifier scored in train mode with autograd on), against
what `fastenough ab` measures for bad.py vs fixed.py (model.eval() +
torch.inference_mode()).

The claim is the two findings' savings per step added up (each is the most its
fix saves, alone or after the other: their sum bounds what both save), as a
share of bad.py's steady step; the measured gain is 1 - A/B of ab's paired
items/s ratio B/A, with its interval. The claim holds when it is not below the
measured gain's interval: "claim >= measured low end".

    python bench/bench_eval_probe.py            # default sizes: ~200 batches
    python bench/bench_eval_probe.py --rounds 3 --env EVAL_BATCHES=100

Writes bench/out/eval_probe/{run,ab}/ and prints one table. Not a test: the
figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "data" / "eval_probe"
CODES = ("train-mode-in-eval", "autograd-in-eval")


def _fe(*args: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fastenough", *args], env=env, cwd=cwd,
                          capture_output=True, text=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2, help="ab's A B B A blocks (default 2)")
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="program sizes (EVAL_BATCHES, EVAL_BATCH, EVAL_SEQ, EVAL_DIM, ...)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "eval_probe")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FASTENOUGH_")}
    env.setdefault("OMP_NUM_THREADS", "1")
    for kv in args.env:
        k, _, v = kv.partition("=")
        env[k] = v
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    bad, fixed = PROGRAMS / "bad.py", PROGRAMS / "fixed.py"
    py = sys.executable

    run_dir = out / "run"
    p = _fe("run", "--no-history", "--quiet", "--run-dir", str(run_dir), "--", py, str(bad),
            env=env, cwd=out)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        return 1
    report = json.loads((run_dir / "report.json").read_text())
    by_code = {f["code"]: f for f in report["findings"]}
    rows = []
    claimed_ns = 0
    step_ns = None
    for code in CODES:
        f = by_code.get(code)
        if f is None:
            rows.append((code, "not found", "", ""))
            continue
        s, ev = f.get("saving") or {}, f.get("evidence") or {}
        per = s.get("per_step_ns")
        basis = "measured" if str(ev.get("saving_basis", "")).startswith("measured") else (
            ev.get("probe_skipped") or "derived/none")
        rows.append((code, f"{per / 1e6:.2f} ms/step" if per else "not estimated",
                     f"{s['share_of_step']:.1%}" if s.get("share_of_step") is not None else "-",
                     basis))
        claimed_ns += per or 0
        if per and s.get("share_of_step"):
            step_ns = per / s["share_of_step"]
    claimed_share = claimed_ns / step_ns if step_ns else 0.0

    ab_dir = out / "ab"
    p = _fe("ab", "--json", "--no-history", "--no-trace", "--rounds", str(args.rounds),
            "--dir", str(ab_dir), f"{py} {bad}", f"{py} {fixed}", env=env, cwd=out)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        print(p.stdout[-2000:], p.stderr[-2000:], file=sys.stderr)
        return 1
    r = doc.get("ratio") or {}
    if not r.get("ratio"):
        print(f"ab measured nothing: {doc.get('verdict')}", file=sys.stderr)
        return 1
    gain = 1 - 1 / r["ratio"]
    lo, hi = 1 - 1 / r["low"], 1 - 1 / r["high"]

    print(f"program: {bad.relative_to(ROOT)} vs {fixed.relative_to(ROOT)} "
          f"(env: {' '.join(args.env) or 'defaults'}); ab unit: {doc.get('unit')}")
    print(f"{'finding':22} {'claimed saving':>16} {'share':>7}  basis")
    for code, per, share, basis in rows:
        print(f"{code:22} {per:>16} {share:>7}  {basis}")
    bound = "unbounded" if claimed_share >= 1 else f"{1 / (1 - claimed_share):.2f}x"
    print(f"claimed together: {claimed_share:.1%} of a step (speed-up up to {bound})")
    print(f"measured by ab:   B/A {r['ratio']:.2f}x [{r['low']:.2f}, {r['high']:.2f}] "
          f"({r.get('confidence', 0.95):.0%}, {r.get('pairs')} pairs): "
          f"gain {gain:.1%} of A's step [{lo:.1%}, {hi:.1%}]")
    holds = claimed_share >= lo
    print(f"claim {'holds' if holds else 'BELOW the measured gain'}: "
          f"claimed {claimed_share:.1%} vs measured low end {lo:.1%}")
    (out / "summary.json").write_text(json.dumps({
        "claimed_share": claimed_share, "findings": rows, "ab_ratio": r,
        "measured_gain": gain, "measured_gain_interval": [lo, hi], "holds": holds}, indent=1))
    return 0 if holds else 1


if __name__ == "__main__":
    sys.exit(main())
