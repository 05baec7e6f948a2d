#!/usr/bin/env python3
"""`fastenough analyze` of one trace by two installations, before and after a
change, in the same run: A B B A ... order so that drift on a shared machine
hits both alike; wall time around each child and its CPU time (user + system,
from os.wait4) and peak RSS. Medians and the after/before ratios are printed
and written to bench/out/before_after.json.

  python bench/bench_before_after.py --before /venvs/main/bin/python \\
      --after .venv/bin/python --trace bench/out/trace_1GB.json --reps 9

Each interpreter must import its own fastenough (a venv per build: an editable
install of a checkout of the base commit, or a wheel of it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_once(python: str, trace: str) -> dict:
    cmd = [python, "-m", "fastenough", "analyze", "--json", "--no-progress", trace]
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(cmd, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {code}: {stderr[-500:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="interpreter with the base fastenough")
    p.add_argument("--after", default=sys.executable, help="interpreter with the change")
    p.add_argument("--trace", required=True)
    p.add_argument("--reps", type=int, default=7, help="runs per side (>= 3)")
    p.add_argument("--out", default=os.path.join(HERE, "out", "before_after.json"))
    p.add_argument("--before-label", default="before",
                   help="what the base is (its commit), kept in the output")
    p.add_argument("--after-label", default="after", help="what the change is (its commit)")
    a = p.parse_args(argv)
    reps = max(3, a.reps)
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    order = ["before", "after", "after", "before"]
    for i in range(2 * reps):
        side = order[i % 4]
        runs[side].append(run_once(a.before if side == "before" else a.after, a.trace))
    summary = {}
    for side, rs in runs.items():
        summary[side] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
    ratios = {k: summary["after"][k] / summary["before"][k] for k in summary["before"]}
    print(f"trace {a.trace} ({os.path.getsize(a.trace) / 1e6:.0f} MB), {reps} runs per side, "
          f"medians (before: {a.before_label}, after: {a.after_label}):")
    for k in ("wall_s", "cpu_s", "rss_mib"):
        print(f"  {k:8} before {summary['before'][k]:9.2f}  after {summary['after'][k]:9.2f}"
              f"  after/before {ratios[k]:.3f}")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"trace": a.trace, "reps": reps, "labels": {"before": a.before_label,
                                                               "after": a.after_label},
                   "runs": runs, "median": summary, "ratio": ratios}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
