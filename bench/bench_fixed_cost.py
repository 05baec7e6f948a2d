#!/usr/bin/env python3
"""The fixed cost `fastenough run` adds to a whole run: start-up, the profiler
window, the analysis after the program exits.

Three arms on the same short program (import torch, build a 6-block MLP, 300
steps of ~1 ms, print a checksum, exit), interleaved A B C C B A per group so
that drift cancels (docs/method.md, Verify):

  A  python prog.py                                  (plain)
  B  fastenough run --no-trace -- python prog.py     (agent, no profiler window)
  C  fastenough run -- python prog.py                (agent + the profiler window)

Each run is timed from the launcher (wall seconds of the whole process tree,
the analysis after the exit included), and the program times its own steady
loop, so the per-step part can be told from the fixed part:

  fixed cost of B = (wall B - wall A) - steps x (step B - step A)
  window cost    = wall C - wall B

From C's report it also prints what the tool measured of itself: the loop's
pauses at phase edges and the window's start/stop cost, which the report keeps
out of the steady figures.

  python bench/bench_fixed_cost.py              # 3 groups (18 runs, ~2 min)
  python bench/bench_fixed_cost.py --groups 5 --steps 300
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

PROGRAM = textwrap.dedent('''
    import json, sys, time
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    steps, out = int(sys.argv[1]), sys.argv[2]
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU())
                                  for _ in range(6)]).eval()
    x = torch.randn(32, 256)
    with torch.inference_mode():
        for _ in range(20):
            model(x)
        t0 = time.perf_counter()
        acc = 0.0
        for _ in range(steps):
            acc += float(model(x).sum())
        loop = time.perf_counter() - t0
    print(f"checksum {acc:.3f}")
    json.dump({"loop_s": loop}, open(out, "w"))
''')


def run_arm(arm: str, prog: str, tmp: str, steps: int, i: int) -> dict:
    out = os.path.join(tmp, f"{arm}{i}.json")
    cmd = [sys.executable, prog, str(steps), out]
    run_dir = os.path.join(tmp, f"run-{arm}{i}")
    if arm == "B":
        cmd = [sys.executable, "-m", "fastenough", "run", "--no-trace", "--quiet", "--no-history",
               "--run-dir", run_dir, "--", *cmd]
    elif arm == "C":
        cmd = [sys.executable, "-m", "fastenough", "run", "--quiet", "--no-history",
               "--run-dir", run_dir, "--", *cmd]
    env = {k: v for k, v in os.environ.items() if not k.startswith("FASTENOUGH_")}
    env["OMP_NUM_THREADS"] = "1"
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    with open(out) as f:
        loop = json.load(f)["loop_s"]
    res = {"arm": arm, "wall_s": round(wall, 3), "step_us": round(loop / steps * 1e6, 1)}
    if arm == "C":
        with open(os.path.join(run_dir, "report.json")) as f:
            m = json.load(f).get("measurement") or {}
        res["tool_pause_ms"] = round((m.get("tool_pause_ns") or 0) / 1e6, 1)
        res["profile_cost_ms"] = round((m.get("profile_cost_ns") or 0) / 1e6, 1)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", type=int, default=3, help="A B C C B A groups (default 3)")
    ap.add_argument("--steps", type=int, default=300, help="steady steps of the program")
    args = ap.parse_args()
    if args.groups < 1:
        ap.error("--groups must be at least 1")
    with tempfile.TemporaryDirectory(prefix="fe-fixed-") as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write(PROGRAM)
        runs: dict[str, list[dict]] = {"A": [], "B": [], "C": []}
        n = 0
        for g in range(args.groups):
            for arm in "ABCCBA":
                res = run_arm(arm, prog, tmp, args.steps, n)
                n += 1
                res["group"] = g
                print(json.dumps(res), flush=True)
                runs[arm].append(res)
    med = {a: statistics.median(r["wall_s"] for r in rs) for a, rs in runs.items()}
    step = {a: statistics.median(r["step_us"] for r in rs) for a, rs in runs.items()}
    per_step_s = args.steps * (step["B"] - step["A"]) / 1e6
    summary = {
        "summary": "fixed cost of fastenough run on one short program (medians)",
        "groups": args.groups,
        "steps": args.steps,
        "wall_plain_s": round(med["A"], 3),
        "wall_no_trace_s": round(med["B"], 3),
        "wall_with_window_s": round(med["C"], 3),
        "steady_step_us": {a: round(s, 1) for a, s in step.items()},
        "fixed_cost_no_trace_s": round(med["B"] - med["A"] - per_step_s, 3),
        "window_cost_s": round(med["C"] - med["B"], 3),
        "report_tool_pause_ms": statistics.median(r["tool_pause_ms"] for r in runs["C"]),
        "report_profile_cost_ms": statistics.median(r["profile_cost_ms"] for r in runs["C"]),
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
