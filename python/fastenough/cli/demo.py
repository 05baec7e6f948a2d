"""`fastenough demo`: run the bundled evaluation workload under `fastenough run`."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from fastenough.inputs.numbers import whole_number

HELP = "run a bundled evaluation workload (with typical waste, or --fixed) and show its report"
DESCRIPTION = """\
Score synthetic items with a small transformer language model (CPU by default,
CUDA when present) under `fastenough run`, and show the report.

The default path contains typical waste: autograd left on, a .item() per step,
batch 1, padding to a fixed length, a Python loop over small expert matmuls and
a full-vocabulary log-softmax at every position. --fixed runs the same
computation with the waste removed; both write the same per-item scores
(within 1e-4).

examples:
  fastenough demo
  fastenough demo --fixed
  fastenough demo --out wasteful.json
  fastenough demo --fixed --out fixed.json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fixed", action="store_true", help="run the path with the waste removed")
    p.add_argument("--items", type=whole_number(1), default=None, metavar="N",
                   help="items to score")
    p.add_argument("--device", choices=["cpu", "cuda"], default=None,
                   help="device (default: cuda when present)")
    p.add_argument("--out", default=None, metavar="FILE", help="write per-item scores (JSON)")
    p.add_argument("--no-trace", action="store_true", help="no profiler window")
    p.set_defaults(func=run)


def workload_command(args: argparse.Namespace) -> list[str]:
    cmd = [sys.executable, "-m", "fastenough.demo.workload"]
    if args.fixed:
        cmd.append("--fixed")
    if args.items is not None:
        cmd += ["--items", str(args.items)]
    if args.device:
        cmd += ["--device", args.device]
    if args.out:
        cmd += ["--out", os.path.abspath(args.out)]
    return cmd


def run(args: argparse.Namespace) -> int:
    from fastenough.cli import main as cli_main

    cmd = workload_command(args)
    if "run" in cli_main.SUBCOMMANDS:
        # The real thing: exactly what a user would type.
        return cli_main.main(["run", *(["--no-trace"] if args.no_trace else []), "--", *cmd])
    return run_without_supervisor(cmd, trace=not args.no_trace)


def run_without_supervisor(cmd: list[str], trace: bool) -> int:
    """Until `fastenough run` exists: set up the run directory and the agent as it
    will, run the workload, and summarise phases.jsonl / steps.jsonl."""
    boot = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "agent", "boot")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    run_dir = os.path.abspath(os.path.join(".fastenough", "runs", f"{stamp}-demo{os.getpid()}"))
    os.makedirs(run_dir)
    env = dict(os.environ)
    env["FASTENOUGH_RUN_DIR"] = run_dir
    env["FASTENOUGH_AGENT_OPTS"] = json.dumps({"trace": trace})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [boot, env.get("PYTHONPATH")]))
    rc = subprocess.call(cmd, env=env)
    sys.stdout.write(summarise_run_dir(run_dir))
    return rc


def _lines(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def summarise_run_dir(run_dir: str) -> str:
    phases = _lines(os.path.join(run_dir, "phases.jsonl"))
    steps = _lines(os.path.join(run_dir, "steps.jsonl"))
    out = [f"run directory: {run_dir}", "phases:"]
    begins: dict = {}
    for p in phases:
        key = (p["pid"], p["phase"])
        if p["edge"] == "begin":
            begins[key] = p["mono_ns"]
        elif key in begins:
            ms = (p["mono_ns"] - begins.pop(key)) / 1e6
            rss = (p.get("memory") or {}).get("rss_bytes")
            mem = f"  rss {rss / 2**20:.0f} MiB" if rss else ""
            kind = "" if p["auto"] else " (yours)"
            out.append(f"  {p['phase'] + kind:<16} {ms:10.1f} ms{mem}")
    steady = [s for s in steps if s["phase"] == "steady"]
    if steady:
        times = [(s["end_mono_ns"] - s["start_mono_ns"]) / 1e6 for s in steady]
        items = sum(s["items"] or 0 for s in steady)
        secs = sum(times) / 1e3
        rate = f", {items / secs:.1f} items/s" if items and secs > 0 else ""
        out.append(f"steady steps: {len(steady)} (source {steady[0]['source']}), median "
                   f"{statistics.median(times):.2f} ms{rate}")
    else:
        out.append(f"steps: {len(steps)} (too few to reach a steady state)")
    trace = os.path.join(run_dir, "trace")
    if os.path.isdir(trace):
        for name in sorted(os.listdir(trace)):
            out.append(f"trace: {os.path.join(trace, name)}  (fastenough analyze it)")
    return "\n".join(out) + "\n"
