"""`fastenough ab`: is B faster than A, fairly measured, with the same answers?"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from fastenough.errors import EXIT_FINDINGS_OR_COUNTERS, EXIT_OK, UsageError
from fastenough.inputs.numbers import finite_float, whole_number
from fastenough.outputs import json_output
from fastenough.visible import visible

# At most this many A B B A blocks (4 runs each).
MAX_ROUNDS = 10**4

HELP = "A/B two commands fairly: A B B A runs, B/A with its interval, outputs compared"
DESCRIPTION = """\
Run each side under `fastenough run` in blocks of A B B A, in the same
working directory and environment (plus the
side's --env-a / --env-b), and report per side: steady throughput (items/s
when both count items, else steps/s), steady step time, cold start (start-up,
load, warm-up), peak memory; then the paired ratio B/A of steady throughput
(the geometric mean of the pairs' ratios) with its 95% interval (Student t
over the pairs' log ratios, the C++ core's; --confidence sets the level), a
noise warning when one side's runs spread more than the difference claimed, the
protocol changes between the sides, and `fastenough compare` of the outputs
both recorded with fastenough.record (A's first run against B's first run).

A protocol change is a field the two sides measured under differently: batch
size (items per steady step), tokens per item (padding), compute dtype, torch
version, device, world size, an environment variable set for one side, or a
field the program declared with fastenough.protocol(name=value) (a model
revision, a weights hash, a dataset split). Items missing or extra on one
side show in the outputs' comparison, by key.
A speed-up with a protocol change reads "B faster, with a protocol change":
a different experiment, not the same one made faster.

The first run of each side runs the full agent: its checks (the findings) and
the profiler window (for `fastenough diff A1 B1`; the window never counts in
steady figures; --no-trace turns it off). Every later run is `fastenough run
--timing-only`: the agent counts and times the steps and installs no checks,
whose cost per step grows with the module calls the program makes (a fix
that calls a head once per row pays more of it than the loop it replaced), so
that B/A is the program's difference and not the agent's. The ratio is of the
pairs whose runs are both timing-only (A2 B2, A3 B3, ...; with --rounds 1, of
every pair, and the text says so). --trace keeps the window and the checks in
every run and the ratio of every pair. Run directories, and each run's
stdout and stderr, are kept under .fastenough/ab/<time>/ (A1, B1, B2, A2,
...), with ab.json, the fastenough.ab/1 document, and ab.html, a page to
forward.

examples:
  fastenough ab "python eval.py" "python eval.py --fast"
  fastenough ab --env-a OMP_NUM_THREADS=1 --env-b OMP_NUM_THREADS=2 -- \\
      python eval.py
  fastenough ab --rounds 3 --require-speedup 1.1 "python a.py" "python b.py"
  fastenough ab --budget 600 "python eval.py" "python eval.py --fast"
  fastenough ab --json "python -m fastenough.demo.workload" \\
      "python -m fastenough.demo.workload --fixed" > ab.json

How many blocks: by default a sequential design looks at the interval after
every block from the second on and stops at the first that decides (at most
--max-rounds blocks, default 5; --budget SECONDS starts no block that would
end later). Each look is at the level alpha / K (K looks planned, Bonferroni),
so that stopping early does not inflate the false-claim rate above alpha = 1 -
--confidence: a 5x difference is decided in 2 blocks on a busy machine, a
small one gets more pairs. --rounds N runs exactly N blocks and looks once.
The report says how many blocks ran and why it stopped.

verdicts: "B faster" / "B slower" (the interval lies above / below 1), "no
difference shown" (it holds 1), "not measured" (a side had no steady steps);
", with a protocol change" and "; outputs differ" are added when they apply.
When the fix changed what a step is (the sides' steady steps are of another
mode, train and eval, or, in steps/s, more than 2x apart in count), each run's
whole wall time is compared instead (B/A = A's time over B's): "B faster on
the whole run's time (the fix changed what a step is)".

exit status: 0; 1 when the outputs differ beyond tolerance, when
--require-speedup R is not met (the interval's lower end is below R), or when
a side's command failed (the runs so far are kept); 2 usage error.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ab", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    rounds = p.add_mutually_exclusive_group()
    rounds.add_argument("--rounds", type=whole_number(1, MAX_ROUNDS), default=None,
                        help="exactly N A B B A blocks (fixed design; default: sequential, "
                        "see --max-rounds)")
    rounds.add_argument("--max-rounds", type=whole_number(2, MAX_ROUNDS), default=5, metavar="N",
                        help="sequential design: at most N A B B A blocks, stopping as soon "
                        "as the interval decides (default 5: at most 20 runs)")
    p.add_argument("--budget", type=finite_float(0, lo_open=True), default=None,
                   metavar="SECONDS",
                   help="sequential design: start no block that would end after SECONDS "
                   "(estimated from the blocks so far); at least 2 blocks always run")
    p.add_argument("--env-a", action="append", default=[], metavar="K=V",
                   help="an environment variable for side A only (repeatable)")
    p.add_argument("--env-b", action="append", default=[], metavar="K=V",
                   help="an environment variable for side B only (repeatable)")
    p.add_argument("--require-speedup", type=finite_float(0, lo_open=True), default=None,
                   metavar="R",
                   help="exit 1 unless the interval's lower end of B/A is at least R")
    trace = p.add_mutually_exclusive_group()
    trace.add_argument("--no-trace", action="store_true", help="no profiler window in any run")
    trace.add_argument("--trace", action="store_true", help="a profiler window in every run")
    p.add_argument("--atol", type=finite_float(0), default=None,
                   help="absolute tolerance of the outputs' comparison (default: per dtype, "
                   "see fastenough compare --help)")
    p.add_argument("--rtol", type=finite_float(0), default=None,
                   help="relative tolerance, likewise")
    p.add_argument("--confidence", type=finite_float(0, 1, lo_open=True, hi_open=True),
                   default=0.95, metavar="C",
                   help="confidence of the interval of B/A (default 0.95; 0.99 for a CI gate "
                   "that must not fail on noise)")
    p.add_argument("--dir", default=None, metavar="DIR",
                   help="where the runs go (default .fastenough/ab/<time>)")
    p.add_argument("--json", action="store_true", help="print the fastenough.ab/1 document")
    p.add_argument("--no-history", action="store_true",
                   help="do not add the comparison to .fastenough/runs.db "
                   "(fastenough history --ab)")
    p.add_argument("commands", nargs=argparse.REMAINDER, metavar='"CMD A" "CMD B" | -- CMD')
    p.set_defaults(func=run)


def _ab_dir(arg: str | None) -> Path:
    if arg:
        d = Path(arg)
        if d.exists() and any(d.iterdir()):
            raise UsageError(f"{d}: not empty; name a new directory for the runs")
        return d
    return Path(".fastenough") / "ab" / time.strftime("%Y%m%d-%H%M%S")


def _add_to_history(doc: dict, side_a, side_b, n_runs: int) -> None:
    try:
        from fastenough.store.history import HistoryDB

        r = doc.get("ratio") or {}
        db = HistoryDB(Path.cwd() / ".fastenough" / "runs.db")
        db.add_ab({
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command_a": side_a.label(), "command_b": side_b.label(), "runs": n_runs,
            "unit": doc.get("unit"), "ratio": r.get("ratio"), "low": r.get("low"),
            "high": r.get("high"), "speed": doc.get("speed"), "verdict": doc.get("verdict"),
            "outputs": (doc.get("outputs") or {}).get("verdict"),
            "protocol_changes": len(doc.get("protocol_changes") or []),
            "ab_dir": str(Path(doc["dir"]).resolve()),
        })
        db.close()
    except Exception as e:  # noqa: BLE001 - the comparison happened; say why it is not listed
        sys.stderr.write(f"fastenough ab: not added to the history: {type(e).__name__}: {e}\n")


def run(args: argparse.Namespace) -> int:
    from fastenough.ab.design import SequentialPlan
    from fastenough.ab.document import document
    from fastenough.ab.outputs import compare_outputs
    from fastenough.ab.runner import run_side
    from fastenough.ab.sides import abba_order, make_sides, parse_env
    from fastenough.render.ab_text import render_text

    side_a, side_b = make_sides(args.commands, parse_env(args.env_a, "--env-a"),
                                parse_env(args.env_b, "--env-b"))
    if args.rounds is not None:
        plan = SequentialPlan.fixed(len(abba_order(args.rounds)) // 4, args.confidence)
        if args.budget is not None:
            raise UsageError("--budget applies to the sequential design; drop --rounds")
    else:
        plan = SequentialPlan.sequential(args.max_rounds, args.confidence)
    ab_dir = _ab_dir(args.dir)
    ab_dir.mkdir(parents=True, exist_ok=True)
    runs = {"A": [], "B": []}
    failed = None
    outputs = None
    tol = {k: v for k, v in (("atol", args.atol), ("rtol", args.rtol)) if v is not None}
    started = time.monotonic()
    doc = None
    stopped = "failed"
    for block in range(1, plan.max_rounds + 1):
        elapsed = time.monotonic() - started
        if (block > plan.min_rounds and args.budget is not None
                and elapsed + elapsed / (block - 1) > args.budget):
            stopped = "budget"
            break
        for name in ("A", "B", "B", "A"):
            side = side_a if name == "A" else side_b
            index = len(runs[name]) + 1
            trace = args.trace or (not args.no_trace and index == 1)
            # Each side's first run carries the findings and the outputs; the
            # others only time (runner.py), unless --trace asks for a window in all.
            timing_only = index > 1 and not args.trace
            t0 = time.monotonic()
            r = run_side(side, index, ab_dir, trace, timing_only)
            runs[name].append(r)
            done = len(runs["A"]) + len(runs["B"])
            total = f"{4 * plan.max_rounds}" if plan.fixed_n else f"at most {4 * plan.max_rounds}"
            sys.stderr.write(f"fastenough ab: run {done} of {total}: {name}{index} "
                             f"({time.monotonic() - t0:.1f} s)\n")
            if not r.ok:
                failed = r
                break
        if failed is not None:
            break
        if outputs is None:  # A1 and B1 exist after the first block
            outputs = compare_outputs(runs["A"][0].run_dir, runs["B"][0].run_dir, **tol)
        if block < plan.min_rounds:
            continue
        doc = document(side_a, side_b, runs, outputs, None, ab_dir,
                       confidence=plan.look_confidence)
        if not plan.fixed_n and doc.get("speed") in ("B faster", "B slower"):
            stopped = "decided"
            break
        stopped = "max-rounds" if not plan.fixed_n else "fixed"
    if failed is not None or doc is None:
        doc = document(side_a, side_b, runs, outputs, failed, ab_dir,
                       confidence=plan.look_confidence)
    doc["design"] = plan.describe(rounds=len(runs["B"]) // 2, stopped=stopped)
    (ab_dir / "ab.json").write_text(json_output.dumps(doc) + "\n")
    try:
        from fastenough.render.html.ab_page import ab_to_html

        (ab_dir / "ab.html").write_text(ab_to_html(doc))
    except Exception as e:  # noqa: BLE001 - ab.json is the contract; the page is a view
        sys.stderr.write(f"fastenough ab: ab.html not written: {type(e).__name__}: {e}\n")
    if not args.no_history:
        _add_to_history(doc, side_a, side_b, len(runs["A"]) + len(runs["B"]))
    if args.json:
        json_output.dump(doc)
    else:
        sys.stdout.write(visible(render_text(doc), keep_newlines=True))
    if failed is not None:
        return EXIT_FINDINGS_OR_COUNTERS
    if (doc.get("outputs") or {}).get("verdict") == "differs":
        return EXIT_FINDINGS_OR_COUNTERS
    if args.require_speedup is not None:
        low = doc["ratio"]["low"] if doc.get("ratio") else None
        if low is None or not math.isfinite(low) or low < args.require_speedup:
            return EXIT_FINDINGS_OR_COUNTERS
    return EXIT_OK
