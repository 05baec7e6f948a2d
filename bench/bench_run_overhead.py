#!/usr/bin/env python3
"""Overhead of `fastenough run` (profiler window off) on a CPU model loop.

Runs the same workload plainly (A) and under `fastenough run --no-trace` (B),
interleaved A B B A per pair (DESIGN.md section 7), and compares the steady-loop
time that the workload measures itself with time.perf_counter() around its timed
loop (same code both ways, after its own warmup). The agent is on its most
expensive step source: calls of the root nn.Module (global forward hooks on every
module call), with a few dozen module calls per step.

  python bench/bench_run_overhead.py                # 3 pairs
  python bench/bench_run_overhead.py --pairs 5 --steps 300

Prints one JSON line per run and a summary: one ratio per A B B A group,
(B1 + B2) / (A1 + A2), their median and range, for wall time and for the
process's CPU time over the same loop (less sensitive to other processes).
The target is a median ratio <= 1.01. This is a benchmark, not a test: on a
busy machine the spread of the ratios says how far the median can be trusted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

WORKLOAD = textwrap.dedent('''
    import json, sys, time
    import torch
    from torch import nn

    steps, warm, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    torch.set_num_threads(1)
    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(256)
            self.fc1 = nn.Linear(256, 512)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(512, 256)
        def forward(self, x):
            return x + self.fc2(self.act(self.fc1(self.ln(x))))

    model = nn.Sequential(*[Block() for _ in range(6)], nn.Linear(256, 16)).eval()
    x = torch.randn(64, 256)
    with torch.inference_mode():
        for _ in range(warm):
            model(x).sum().item()
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            model(x).sum().item()
        t1, c1 = time.perf_counter(), time.process_time()
    json.dump({"steady_s": t1 - t0, "steady_cpu_s": c1 - c0, "steps": steps,
               "agent": "fastenough.agent.runtime" in sys.modules}, open(out, "w"))
''')


def _have_run() -> bool:
    from fastenough.cli import main as cli_main

    return "run" in cli_main.SUBCOMMANDS


def run_once(kind: str, script: str, tmp: str, steps: int, warm: int, i: int,
             via_run: bool) -> dict:
    out = os.path.join(tmp, f"{kind}{i}.json")
    cmd = [sys.executable, script, str(steps), str(warm), out]
    env = {k: v for k, v in os.environ.items() if not k.startswith("FASTENOUGH_")}
    env["OMP_NUM_THREADS"] = "1"
    if kind == "B":
        run_dir = os.path.join(tmp, f"run{i}")
        if via_run:
            cmd = [sys.executable, "-m", "fastenough", "run", "--no-trace", "--quiet",
                   "--no-history", "--run-dir", run_dir, "--", *cmd]
        else:  # before `fastenough run` existed: the agent alone, set up by hand
            import fastenough

            boot = os.path.join(os.path.dirname(fastenough.__file__), "agent", "boot")
            os.makedirs(run_dir)
            env["FASTENOUGH_RUN_DIR"] = run_dir
            env["FASTENOUGH_AGENT_OPTS"] = json.dumps({"trace": False})
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [boot, env.get("PYTHONPATH")]))
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(out) as f:
        res = json.load(f)
    if res["agent"] != (kind == "B"):
        raise SystemExit(f"run {kind}{i}: agent loaded = {res['agent']}, expected {kind == 'B'}")
    res["kind"] = kind
    return res


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=3, help="A B B A groups (at least 3)")
    p.add_argument("--steps", type=int, default=200, help="timed steps per run")
    p.add_argument("--warm", type=int, default=30, help="untimed steps before them")
    p.add_argument("--via", choices=["run", "agent"], default="run",
                   help="B under `fastenough run` (default), or only the agent (env set here)")
    args = p.parse_args()
    via_run = args.via == "run" and _have_run()
    if args.pairs < 3:
        p.error("--pairs must be at least 3")
    tmp = tempfile.mkdtemp(prefix="fe-overhead-")
    script = os.path.join(tmp, "workload.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    ratios, cpu_ratios = [], []
    n = 0
    try:
        for pair in range(args.pairs):
            group = []
            for kind in "ABBA":
                res = run_once(kind, script, tmp, args.steps, args.warm, n, via_run)
                n += 1
                res["pair"] = pair
                print(json.dumps(res), flush=True)
                group.append(res)
            a = group[0]["steady_s"] + group[3]["steady_s"]
            b = group[1]["steady_s"] + group[2]["steady_s"]
            ratios.append(b / a)
            a = group[0]["steady_cpu_s"] + group[3]["steady_cpu_s"]
            b = group[1]["steady_cpu_s"] + group[2]["steady_cpu_s"]
            cpu_ratios.append(b / a)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = statistics.median(ratios)
    print(json.dumps({
        "summary": "steady-loop time, under fastenough run --no-trace / plain",
        "via": "fastenough run --no-trace" if via_run else "agent only (env set here)",
        "pairs": len(ratios),
        "ratios": [round(r, 4) for r in ratios],
        "median_ratio": round(med, 4),
        "min_ratio": round(min(ratios), 4),
        "max_ratio": round(max(ratios), 4),
        "cpu_ratios": [round(r, 4) for r in cpu_ratios],
        "cpu_median_ratio": round(statistics.median(cpu_ratios), 4),
        "target": "<= 1.01",
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
