#!/usr/bin/env python3
"""`fastenough analyze --json` of a trace of many steps and of a trace of many
devices (issue 34, item 9): wall time, CPU time and peak RSS of the child
(os.wait4), and the report's size. Each large trace is measured beside a
baseline ten times smaller in the same run, and the ratio of their costs per
step (per device) is printed: about 1 when the analysis and the report stay
linear. Results go to bench/out/bounded_report.json.

  python bench/bench_bounded_report.py                       # 1M / 100k steps, 100k / 10k devices
  python bench/bench_bounded_report.py --steps 200000 --devices 20000 --reps 3

The traces (written once to bench/out/, reused after): steps_<N>.json holds N
`ProfilerStep#N` windows and nothing else (120 MB for a million, the trace of
the issue); devices_<N>.json one step and one kernel on each of N devices.
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
OUT = os.path.join(HERE, "out")


def steps_trace(n: int) -> str:
    path = os.path.join(OUT, f"steps_{n}.json")
    if os.path.exists(path):
        return path
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"GPU",'
                '"totalGlobalMem":1000000000,"computeMajor":8,"computeMinor":0,"numSms":108}],'
                '"traceEvents":[\n')
        f.write(",\n".join(
            f'{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{i}","pid":1,"tid":1,'
            f'"ts":{1000 + i * 10},"dur":{9 - i % 3}}}' for i in range(n)))
        f.write("]}\n")
    os.replace(tmp, path)
    return path


def devices_trace(n: int) -> str:
    path = os.path.join(OUT, f"devices_{n}.json")
    if os.path.exists(path):
        return path
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write('{"traceEvents":[\n{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1",'
                '"pid":1,"tid":1,"ts":0,"dur":100000}')
        for i in range(n):
            f.write(f',\n{{"ph":"X","cat":"kernel","name":"k","pid":{i},"tid":7,'
                    f'"ts":{10 + i % 1000},"dur":5,"args":{{"device":{i},"stream":7}}}}')
        f.write("]}\n")
    os.replace(tmp, path)
    return path


def run_once(trace: str) -> dict:
    cmd = [sys.executable, "-m", "fastenough", "analyze", "--json", "--no-progress", trace]
    out = os.path.join(OUT, "bounded_report.out.json")
    t0 = time.perf_counter()
    with open(out, "wb") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1, 5):
        raise SystemExit(f"{' '.join(cmd)} exited {code}: {stderr[-500:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024, "report_bytes": os.path.getsize(out)}


def measure(name: str, trace: str, units: int, reps: int) -> dict:
    runs = [run_once(trace) for _ in range(reps)]
    row = {"case": name, "units": units, "trace_bytes": os.path.getsize(trace),
           **{k: statistics.median(r[k] for r in runs) for k in runs[0]}}
    print(f"{name:>16}: wall {row['wall_s']:7.2f} s  cpu {row['cpu_s']:7.2f} s  "
          f"peak RSS {row['rss_mib']:7.0f} MiB  report {row['report_bytes'] / 1e6:6.2f} MB  "
          f"(trace {row['trace_bytes'] / 1e6:.0f} MB)", flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--devices", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=1, help="runs of each case (median)")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    rows, ratios = [], {}
    for kind, n, make in (("steps", args.steps, steps_trace),
                          ("devices", args.devices, devices_trace)):
        base = measure(f"{n // 10} {kind}", make(n // 10), n // 10, args.reps)
        big = measure(f"{n} {kind}", make(n), n, args.reps)
        rows += [base, big]
        ratio = (big["cpu_s"] / big["units"]) / (base["cpu_s"] / base["units"])
        ratios[kind] = ratio
        print(f"{'':>16}  cpu per {kind[:-1]}, {n} vs {n // 10}: x{ratio:.2f} "
              "(1 = linear)", flush=True)
    with open(os.path.join(OUT, "bounded_report.json"), "w") as f:
        json.dump({"rows": rows, "cpu_per_unit_ratio": ratios}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
