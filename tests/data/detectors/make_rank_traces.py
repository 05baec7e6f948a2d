#!/usr/bin/env python3
"""Writes straggler_rank0.json and straggler_rank1.json: a synthetic two-rank
data-parallel step loop (Kineto-shaped, like make_waste_trace.py; no GPU was
available) in which rank 1 reaches every all-reduce 2 ms after rank 0 because
its forward takes longer. Both ranks share one wall clock, as Kineto traces
of one host do. Deterministic; run to regenerate the fixtures.
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("waste", os.path.join(HERE, "make_waste_trace.py"))
waste = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(waste)

STEPS = 6
STEP_US = 10_000.0
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def build(rank: int) -> dict:
    tr = waste.Trace()
    extra = 2_000.0 if rank == 1 else 0.0  # rank 1's forward is 2 ms longer
    for n in range(STEPS):
        t0 = waste.BASE_US + n * STEP_US
        fwd = 5_000.0 + extra
        tr.op("aten::linear", t0 + 10, 30, [[512, 1024], [1024, 1024], [1024]],
              ["float", "float", "float"], [[1024, 1], [1024, 1], [1]])
        tr.op("aten::addmm", t0 + 15, 20, [[1024], [512, 1024], [1024, 1024], [], []],
              ["float", "float", "float", "Scalar", "Scalar"], [[1], [1024, 1], [1, 1024], [], []])
        tr.kernel("ampere_sgemm_128x64_nn", t0 + 20, 8, t0 + 40, fwd, [8, 8, 1], [256, 1, 1])
        # The all-reduce kernel starts when this rank launches it and ends
        # when the last rank has joined (7.5 ms into the step on both ranks).
        ar_ts = t0 + 40 + fwd + 10
        ar_end = t0 + 40 + 5_000.0 + 2_000.0 + 500.0
        tr.op("c10d::allreduce_", ar_ts - 20, 15, [[1024, 1024]], ["float"], [[1024, 1]])
        tr.kernel(NCCL, ar_ts - 15, 6, ar_ts, ar_end - ar_ts, [2, 1, 1], [512, 1, 1])
        tr.x("user_annotation", f"ProfilerStep#{n}", t0, STEP_US - 5, args={"External id": 0})
    return {
        "schemaVersion": 1,
        "deviceProperties": [{"id": rank, "name": "NVIDIA A100-SXM4-80GB",
                              "totalGlobalMem": 85031714816, "computeMajor": 8,
                              "computeMinor": 0, "numSms": 108}],
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1733130000000000000,
        "traceEvents": tr.events,
    }


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    for rank in (0, 1):
        with open(os.path.join(out_dir, f"straggler_rank{rank}.json"), "w",
                  encoding="utf-8") as f:
            json.dump(build(rank), f, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
