"""Report dicts for renderer tests, built by hand so that every figure in them
is known: a 64-rank job with one slow, idle rank, and small variations of it."""

from __future__ import annotations

import copy

T0 = 1_800_000_000_000_000_000  # wall-clock ns of the command's start
S = 1_000_000_000
SLOW_RANK = 37  # the straggler: most device idle, slowest steady phase
PHASES = [("startup", 0, 4), ("warmup", 4, 6), ("steady", 6, 16), ("profile", 16, 18),
          ("steady", 18, 40), ("tail", 40, 41)]


def many_ranks_report(ranks: int = 64) -> dict:
    phases, details, devices = [], [], []
    for r in range(ranks):
        late = 2 if r == SLOW_RANK else 0  # seconds: the slow rank's steady phases are longer
        for name, a, b in PHASES:
            end = b + (late if name == "steady" else 0)
            phases.append({
                "name": name, "rank": r, "start_ns": T0 + a * S, "end_ns": T0 + end * S,
                "host_ns": (end - a) * S,
                "device_busy_share": (0.55 if r == SLOW_RANK else 0.9) if name == "steady"
                else None,
                "util_mean": 90.0 if name == "steady" else None, "power_mean_w": 400.0,
                "mem_used_max": 60 * 2**30, "alloc_peak": 50 * 2**30,
                "reserved_peak": 55 * 2**30,
            })
            details.append({"name": name, "rank": r, "mode": "train",
                            "auto": True, "complete": True, "cpu_mean_pct": 100.0,
                            "rss_max": 8 * 2**30})
        span = 2 * S
        idle = round((0.45 if r == SLOW_RANK else 0.10 + 0.001 * r) * span)
        busy = span - idle
        devices.append({
            "rank": r, "device": r % 8, "name": "NVIDIA H100 80GB HBM3", "span_ns": span,
            "busy_ns": busy, "idle_ns": idle, "compute_ns": round(busy * 0.7),
            "comm_ns": round(busy * 0.2), "memcpy_ns": round(busy * 0.08),
            "memset_ns": round(busy * 0.02),
            "device_idle": {"host_wait_ns": round(idle * 0.8), "kernel_wait_ns": round(idle * 0.2),
                            "other_ns": 0},
            "kernel_count": 12000, "short_kernel_count": 300,
        })
    return {
        "schema": "fastenough.report/1", "tool_version": "0.1.0",
        "inputs": [{"path": f"/runs/x/trace/rank{r}.pt.trace.json.gz", "format": "kineto",
                    "bytes": 40_000_000, "events": 900_000, "ranks": [r]} for r in range(ranks)],
        "run": {"command": ["torchrun", "--nproc_per_node=8", "train.py"], "exit_status": 0,
                "signal": None, "wall_ns": 41 * S, "run_dir": "/runs/x", "missing": []},
        "meta": {"world_size": ranks, "backend": "nccl", "start_wall_ns": T0,
                 "end_wall_ns": T0 + 41 * S, "host": "node01", "cwd": "/work/proj",
                 "fastenough_version": "0.1.0",
                 "agents": [{"role": "rank", "rank": 0, "python": "3.11.7",
                             "torch": "2.13.0+cu128", "cuda": "12.8"}]},
        "counters": [],
        "phases": phases,
        "steps": {"count": 400, "median_ns": 250_000_000, "p10_ns": 240_000_000,
                  "p90_ns": 270_000_000, "steady_count": 380, "steady_median_ns": 251_000_000,
                  "steady_p10_ns": 241_000_000, "steady_p90_ns": 268_000_000,
                  "steady_steps_per_s": 3.98, "items_per_s": 2037.8, "tokens_per_s": None,
                  "mode": "train", "per_rank": []},
        "devices": devices,
        "top_kernels": [{"name": "ncclKernel_AllReduce_RING_LL_Sum_bfloat16", "count": 640,
                         "total_ns": 300_000_000, "mean_ns": 468_750, "share_of_busy": 0.2}],
        "top_ops": [],
        "findings": [{
            "code": "straggler-rank", "verdict": "avoidable",
            "title": f"Rank {SLOW_RANK} reaches the collectives late", "source": "trace",
            "evidence": {"late_ns_per_step": 40_000_000, "rank": SLOW_RANK},
            "where": [{"rank": SLOW_RANK}],
            "saving": {"per_step_ns": 40_000_000, "share_of_step": 0.16, "upper_bound": True},
            "action": "Find what this rank does that the others do not (data, host load).",
            "rank": SLOW_RANK}],
        "measurement": {"status": "complete", "reasons": [], "steady_steps": 380},
        "run_details": {"phases": details,
                        "steps_by_mode": [{"mode": "train", "ranks": ranks, "steady_count": 380,
                                           "median_ns": 251_000_000, "p10_ns": 241_000_000,
                                           "p90_ns": 268_000_000, "steps_per_s": 3.98,
                                           "items_per_s": 2037.8}]},
    }


def few_ranks_report(ranks: int = 2) -> dict:
    """The same job with a few ranks: every rank listed."""
    return many_ranks_report(ranks)


def crashed(report: dict) -> dict:
    r = copy.deepcopy(report)
    r["run"]["exit_status"] = 1
    return r
