"""Is fastenough.abba calibrated? Identical functions, timed against each other.

Runs fastenough.abba(f, f, inputs) --runs times, f = lambda t: t @ t on --size
x --size CPU tensors (the case of issue 37), and reports the distribution of the
B/A ratio (median, quartiles) and how often the interval excluded 1 (B "slower"
and "faster" apart), against the nominal rate 1 - confidence, with the binomial
probability of seeing that many exclusions or more from a calibrated interval.

    python bench/bench_abba_calibration.py                      # 200 runs, 384 x 384
    python bench/bench_abba_calibration.py --runs 100 --threads 1 --size 256
    python bench/bench_abba_calibration.py --abba OLD_ABBA.py   # another abba.py, for before/after

--abba loads abba() from a file (e.g. `git show REV:python/fastenough/measure/abba.py
> /tmp/abba_old.py`), so a change can be measured against the version before
it on the same machine, interleaved run by run. Figures depend on the machine
and its load (uptime is printed); nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import sys
import time


def load_abba(path: str | None):
    if path is None:
        from fastenough import abba

        return abba
    name = f"abba_under_test_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod.abba


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def summary(name: str, results: list[dict], confidence: float, seconds: float) -> dict:
    ratios = sorted(r["ratio"] for r in results)
    n = len(ratios)
    slower = sum(1 for r in results if r["low"] > 1)
    faster = sum(1 for r in results if r["high"] < 1)
    nominal = 1 - confidence
    return {"abba": name, "runs": n, "median": statistics.median(ratios),
            "q25": ratios[n // 4], "q75": ratios[(3 * n) // 4],
            "excluded": slower + faster, "b_slower": slower, "b_faster": faster,
            "excluded_rate": (slower + faster) / n, "nominal_rate": nominal,
            "p_value": binomial_tail(slower + faster, n, nominal), "seconds": seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--size", type=int, default=384)
    ap.add_argument("--inputs", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: leave as is)")
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--abba", action="append", default=[], metavar="FILE",
                    help="an abba.py to measure beside the installed one (repeatable)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    inputs = [torch.randn(args.size, args.size)] * args.inputs

    def f(t):
        return t @ t

    variants = [("installed", load_abba(None))] + [(p, load_abba(p)) for p in args.abba]
    results: dict[str, list[dict]] = {name: [] for name, _ in variants}
    seconds = dict.fromkeys(results, 0.0)
    for _ in range(args.runs):  # interleaved run by run: the same load on every variant
        for name, abba in variants:
            t0 = time.perf_counter()
            r = abba(f, f, inputs, rounds=args.rounds, confidence=args.confidence)
            seconds[name] += time.perf_counter() - t0
            results[name].append(r.ratio)
    rows = [summary(name, results[name], args.confidence, seconds[name]) for name in results]
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"load": load, "torch_threads": torch.get_num_threads(),
                          "size": args.size, "rows": rows}, indent=2))
        return
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; torch threads "
          f"{torch.get_num_threads()}; f = t @ t on {args.size} x {args.size}, "
          f"{args.inputs} inputs, {args.rounds} rounds, {args.runs} runs each")
    for r in rows:
        print(f"{r['abba']}: B/A median {r['median']:.3f} (quartiles {r['q25']:.3f} .. "
              f"{r['q75']:.3f}); interval excluded 1 in {r['excluded']}/{r['runs']} "
              f"({r['excluded_rate']:.1%}, nominal {r['nominal_rate']:.0%}; B slower "
              f"{r['b_slower']}, faster {r['b_faster']}; P(>= that | calibrated) = "
              f"{r['p_value']:.2g}); {r['seconds']:.1f} s")


if __name__ == "__main__":
    main()
