#!/usr/bin/env python3
"""The agent's cost per step, in instructions: valgrind's callgrind counts them
the same however busy the machine is, so the per-step cost of `fastenough run`
can be measured on a shared 2-core machine where timings swing by 10-20%.

For each loop shape the workload runs N and 2N steady steps (after its own
warm-up and the agent's), plain and with the agent injected the way `fastenough
run` injects it (--no-trace, the default checks; with --timing-only also as
`fastenough run --timing-only` injects it, the way `fastenough ab` times its
rounds); a step's cost is
(I(2N) - I(N)) / N, so start-up, warm-up and exit cancel out, and the agent's
cost per step is the difference between the two arms. Instructions are turned
into microseconds with the plain arm's own rate (its step time measured outside
valgrind), which is what the instructions cost on this machine.

Loop shapes (one thread, CPU):
  seq3         nn.Sequential(Linear, ReLU, Linear) evaluated, ~0.18 ms a step
  transformer  one nn.TransformerEncoderLayer evaluated (batch_first)
  dataloader   a DataLoader over a TensorDataset feeding a small MLP
  optimizer    training steps of a small MLP with SGD (forward, backward, step)
  roots        seq3's model, then a head module called from the top level once per
               row of 16 (16 root module calls a step: lm-eval's fix calls lm_head
               itself once per row), each checked by the checks' hooks

  python bench/bench_step_cost.py                 # every shape, N=400
  python bench/bench_step_cost.py --shape seq3 --steps 200
  python bench/bench_step_cost.py --shape roots --timing-only   # + the timing-only agent
  python bench/bench_step_cost.py --shape roots --timing-only --wall 5
      # no valgrind: each arm's step time by the clock, 5 runs each interleaved,
      # medians (valgrind needs minutes a run at load 8; the clock is noisy)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time

SHAPES = ("seq3", "transformer", "dataloader", "optimizer", "roots")

WORKLOAD = textwrap.dedent('''
    import sys, time
    import torch
    from torch import nn
    shape, steps, warm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(1)
    torch.manual_seed(0)
    if shape == "seq3":
        model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256)).eval()
        x = torch.randn(16, 256)
        def step():
            with torch.inference_mode():
                return model(x).sum().item()
        loop = lambda n: [step() for _ in range(n)]
    elif shape == "roots":
        model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256)).eval()
        head = nn.Linear(256, 16).eval()
        x = torch.randn(16, 256)
        def step():
            with torch.inference_mode():
                h = model(x)
                return torch.stack([head(h[i]) for i in range(16)]).sum().item()
        loop = lambda n: [step() for _ in range(n)]
    elif shape == "transformer":
        model = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True).eval()
        x = torch.randn(4, 32, 128)
        def step():
            with torch.inference_mode():
                return model(x).sum().item()
        loop = lambda n: [step() for _ in range(n)]
    elif shape == "dataloader":
        from torch.utils.data import DataLoader, TensorDataset
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8)).eval()
        loader = iter(DataLoader(TensorDataset(torch.randn(80000, 64)), batch_size=8))
        def loop(n):
            with torch.inference_mode():
                for _, (x,) in zip(range(n), loader):
                    model(x).sum().item()
    elif shape == "optimizer":
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randn(16, 64), torch.randn(16, 8)
        def loop(n):
            for _ in range(n):
                loss = nn.functional.mse_loss(model(x), y)
                opt.zero_grad(); loss.backward(); opt.step()
    loop(warm)
    t0 = time.perf_counter()
    loop(steps)
    print("STEP_S", (time.perf_counter() - t0) / steps)
''')


# The arms: no agent, the agent as `fastenough run --no-trace` injects it, and as
# `fastenough run --timing-only` does.
ARMS = {"plain": None, "full": {"trace": False}, "timing": {"timing_only": True, "trace": False}}


def _env(agent, run_dir: str) -> dict:
    """agent: an arm's agent options (ARMS), None for none; True: the full agent."""
    import fastenough

    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("FASTENOUGH_RUN_DIR", None)
    if agent is True:
        agent = ARMS["full"]
    if agent:
        boot = os.path.join(os.path.dirname(fastenough.__file__), "agent", "boot")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [boot, env.get("PYTHONPATH")]))
        env["FASTENOUGH_RUN_DIR"] = run_dir
        env["FASTENOUGH_AGENT_OPTS"] = json.dumps(agent)
    return env


def instructions(script: str, shape: str, steps: int, warm: int, agent) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        sys.executable, script, shape, str(steps), str(warm)],
                       env=_env(agent, os.path.join(tmp, "run")), check=True,
                       capture_output=True, text=True)
        with open(out) as f:
            text = f.read()
        m = re.search(r"^summary: (\d+)", text, re.M) or re.search(r"^totals: (\d+)", text, re.M)
        return int(m.group(1))


def step_seconds(script: str, shape: str, steps: int, warm: int) -> float:
    r = subprocess.run([sys.executable, script, shape, str(steps * 10), str(warm)],
                       env=_env(False, ""), check=True, capture_output=True, text=True)
    return float(re.search(r"STEP_S (\S+)", r.stdout).group(1))


def wall(args, arms: list[str]) -> int:
    """Each arm's step time by the clock (the workload's own STEP_S over its N
    steps after its warm-up), R runs per arm in turn; the agent's cost per step
    is the arm's median less the plain median."""
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "workload.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        print(f"{'shape':12} {'arm':7} {'median step':>12} {'agent cost/step':>16}  runs (us)")
        for shape in args.shape or SHAPES:
            times: dict[str, list[float]] = {arm: [] for arm in arms}
            for _ in range(args.wall):
                for arm in arms:
                    r = subprocess.run([sys.executable, script, shape, str(args.steps),
                                        str(args.warm)],
                                       env=_env(ARMS[arm], os.path.join(tmp, f"run-{arm}")),
                                       check=True, capture_output=True, text=True)
                    times[arm].append(float(re.search(r"STEP_S (\S+)", r.stdout).group(1)))
                    subprocess.run(["rm", "-rf", os.path.join(tmp, f"run-{arm}")], check=False)
            plain = statistics.median(times["plain"])
            for arm in arms:
                m = statistics.median(times[arm])
                cost = "" if arm == "plain" else f"{(m - plain) * 1e6:14.1f}us"
                runs = ", ".join(f"{t * 1e6:.0f}" for t in times[arm])
                print(f"{shape:12} {arm:7} {m * 1e6:10.1f}us {cost:>16}  {runs}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", choices=SHAPES, action="append")
    ap.add_argument("--steps", type=int, default=400, help="N (the runs do N and 2N steps)")
    ap.add_argument("--warm", type=int, default=300,
                    help="warm-up steps before counting (the agent settles and defers)")
    ap.add_argument("--timing-only", action="store_true",
                    help="also the agent of `fastenough run --timing-only` (ab's rounds)")
    ap.add_argument("--wall", type=int, default=0, metavar="R",
                    help="no valgrind: R runs per arm, interleaved, timed by the clock")
    args = ap.parse_args()
    arms = ["plain", "full"] + (["timing"] if args.timing_only else [])
    if args.wall:
        return wall(args, arms)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "workload.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        print(f"{'shape':12} {'arm':7} {'plain step':>11} {'instr/step plain':>17} "
              f"{'agent instr/step':>17} {'agent cost/step':>16}")
        for shape in args.shape or SHAPES:
            t0 = time.time()
            per = {}
            for arm in arms:
                a = instructions(script, shape, args.steps, args.warm, ARMS[arm])
                b = instructions(script, shape, 2 * args.steps, args.warm, ARMS[arm])
                per[arm] = (b - a) / args.steps
            step_s = step_seconds(script, shape, args.steps, args.warm)
            rate = per["plain"] / (step_s * 1e6)  # instructions per microsecond
            for arm in arms[1:]:
                cost = (per[arm] - per["plain"]) / rate
                print(f"{shape:12} {arm:7} {step_s * 1e6:9.1f}us {per['plain']:17,.0f} "
                      f"{per[arm] - per['plain']:17,.0f} {cost:14.1f}us   "
                      f"({time.time() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
