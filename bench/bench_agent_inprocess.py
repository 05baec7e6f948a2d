"""Cost of the agent's hooks, measured inside one process.

Run it under `fastenough run` (the agent must be loaded):

    fastenough run --no-trace --no-history --quiet -- python bench/bench_agent_inprocess.py

The same model loop runs in blocks of 50 steps, alternating A B B A between
"agent on" and "agent off" (Agent.enabled, which makes every hook return at
once), after 80 untimed steps so the agent is in its steady phase. Process-
level A/B runs (bench_run_overhead.py) carry run-to-run noise of +-10% on a
shared machine; pairing blocks inside one process removes most of it.
Prints one JSON line: median step time on and off (ms), their ratio.
"""

from __future__ import annotations

import json
import statistics
import time

import torch
from torch import nn

from fastenough.agent import runtime


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(256)
        self.fc1 = nn.Linear(256, 512)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(512, 256)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.ln(x))))


def main() -> None:
    agent = runtime.get_agent()
    if agent is None:
        raise SystemExit("run this under `fastenough run` (no agent loaded)")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(*[Block() for _ in range(6)], nn.Linear(256, 16)).eval()
    x = torch.randn(64, 256)
    per_step = {"on": [], "off": []}
    with torch.inference_mode():
        for _ in range(80):
            model(x).sum().item()
        for block in range(16):
            mode = "on" if block % 4 in (0, 3) else "off"  # A B B A
            agent.enabled = mode == "on"
            t0 = time.perf_counter()
            for _ in range(50):
                model(x).sum().item()
            per_step[mode].append((time.perf_counter() - t0) / 50)
        agent.enabled = True
    on, off = statistics.median(per_step["on"]), statistics.median(per_step["off"])
    print(json.dumps({"on_ms": round(on * 1e3, 4), "off_ms": round(off * 1e3, 4),
                      "ratio": round(on / off, 4), "cost_us_per_step": round((on - off) * 1e6, 1),
                      "phase": agent.auto_phase}))


if __name__ == "__main__":
    main()
