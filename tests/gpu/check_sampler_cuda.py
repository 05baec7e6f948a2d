"""Manual GPU check of the sampler (not collected by pytest): run a CUDA matmul
loop for ~10 s under the sampler and print what NVML reported.

    python tests/gpu/check_sampler_cuda.py [--seconds 10] [--hz 2]

Expect: backend nvml present, one row per device per tick, util_pct near 100
and power/SM clock up on the device the loop ran on while it ran, the other
devices idle, mem_used_bytes above the allocated tensors, and this process NOT
listed among other processes. Exit status 1 when NVML or CUDA is missing or the
busy device never showed utilisation.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import tempfile
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--hz", type=float, default=2.0)
    args = ap.parse_args()

    import torch

    from fastenough import _core
    from fastenough.supervisor.devices import visible_mapping

    if not torch.cuda.is_available():
        print("CUDA not available")
        return 1
    out = os.path.join(tempfile.mkdtemp(prefix="fe-sampler-"), "samples.csv")
    s = _core.Sampler(out, hz=args.hz, npu_smi=False)
    s.start()
    s.set_root_pid(os.getpid())
    print("backends:", s.backends())
    devices = s.devices()
    print("devices:", devices)
    mapping = visible_mapping(dict(os.environ), devices)
    print("visible mapping:", mapping)

    local = torch.cuda.current_device()
    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    t_start = time.time_ns()
    n = 0
    while time.time_ns() - t_start < args.seconds * 1e9:
        for _ in range(10):
            c = a @ b
        torch.cuda.synchronize()
        n += 10
    t_end = time.time_ns()
    del c
    time.sleep(1.0)  # a few idle ticks after the loop
    s.stop()
    print(f"matmuls: {n} in {(t_end - t_start) / 1e9:.1f} s; ticks {s.ticks}")
    print("other processes:", s.other_processes())

    physical = mapping["physical"][local] if mapping and mapping["physical"] else local
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    nvml = [r for r in rows if r["source"] == "nvml"]
    proc = [r for r in rows if r["source"] == "proc"]
    print(f"rows: {len(nvml)} nvml, {len(proc)} proc -> {out}")
    ok = bool(nvml)
    for dev in sorted({int(r["device"]) for r in nvml}):
        busy = [r for r in nvml
                if int(r["device"]) == dev and t_start <= int(r["wall_ns"]) <= t_end]

        def mean(key, rows=busy):
            v = [float(r[key]) for r in rows if r[key] != ""]
            return f"{statistics.mean(v):.1f}" if v else "absent"

        mem = [int(r["mem_used_bytes"]) for r in busy if r["mem_used_bytes"]]
        print(f"device {dev}{' (the loop)' if dev == physical else ''}: {len(busy)} samples in "
              f"the loop; util {mean('util_pct')} %, power {mean('power_w')} W, "
              f"SM clock {mean('sm_clock_mhz')} MHz, mem used max "
              f"{max(mem) / 2**30 if mem else float('nan'):.2f} GiB")
        if dev == physical:
            util = [float(r["util_pct"]) for r in busy if r["util_pct"]]
            ok = ok and bool(util) and max(util) > 50
    cpu = [float(r["cpu_pct"]) for r in proc if r["cpu_pct"]]
    print(f"process tree cpu mean {statistics.mean(cpu) if cpu else float('nan'):.1f} %")
    print("OK" if ok else "FAILED: NVML rows missing or the busy device showed no utilisation")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
