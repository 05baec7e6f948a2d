#!/usr/bin/env python3
"""Benchmark `fastenough analyze` over many ranks: time and peak memory for 1, 4,
16 and 64 ranks of generated traces.

Each rank's trace is written once by gen_trace.py (--rank R --seed R, --mb MB of
JSON each) into bench/out/ranks_<MB>MB/ and reused by later runs. Then, for
every rank count N, `python -m fastenough analyze --json --no-progress
--threads T rank0.json .. rank<N-1>.json > /dev/null` runs as a child process,
timed from outside (wall clock), its peak RSS taken from os.wait4's rusage
(ru_maxrss). A child that only imports fastenough and its core gives the
interpreter's own RSS (the baseline), so that the figures can also be read net
of it. Rank counts run interleaved over --reps rounds (1 4 16 64 / 64 16 4 1 /
...); medians are reported.

The pipeline frees each rank's events once its summary is taken
(docs/rank-summary.md), so the target is a peak RSS at 64 ranks within 2x the
single-rank figure (about one trace per loader thread plus the summaries),
where keeping every rank would need 64 traces at once. Time is reported per
byte of JSON analysed.

  python bench/bench_ranks.py                      # 20 MB per rank, --threads 2
  python bench/bench_ranks.py --mb 100 --reps 3    # the issue's full size: 6.4 GB
                                                   # of traces for 64 ranks
  python bench/bench_ranks.py --ranks 1,8 --threads 4

Results: a table on stdout and bench/out/ranks_results.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen_trace  # noqa: E402

TARGET_RSS_RATIO_64 = 2.0


def ensure_traces(directory: str, count: int, mb: float, world_size: int) -> list[str]:
    """rank<R>.json for R < count, generated when missing (same seed: same file)."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for r in range(count):
        path = os.path.join(directory, f"rank{r}.json")
        if not os.path.exists(path):
            gen_trace.generate(path, int(mb * 1e6), None, 4, r, False, None, 1024, 256,
                               quiet=True, rank=r, world_size=world_size)
        paths.append(path)
    return paths


def run_child(cmd: list[str], env: dict) -> dict:
    """Wall seconds, peak RSS (bytes) and exit status of cmd, stdout discarded."""
    t0 = time.perf_counter()
    # stderr to a file, not a pipe: a child that writes much would block on a full pipe.
    with open(os.devnull, "wb") as devnull, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=devnull, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    return {"wall_s": wall, "rss_bytes": usage.ru_maxrss * 1024, "rc": proc.returncode,
            "stderr": text[-2000:]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=20.0,
                   help="MB of trace JSON per rank (default 20; the issue's figure is 100)")
    p.add_argument("--ranks", default="1,4,16,64", help="rank counts, comma-separated")
    p.add_argument("--threads", type=int, default=2, help="analyze --threads (default 2)")
    p.add_argument("--reps", type=int, default=1, help="rounds over the rank counts")
    p.add_argument("--out", default=os.path.join(HERE, "out"),
                   help="where the traces and results go (default bench/out)")
    p.add_argument("--python", default=sys.executable,
                   help="the interpreter that has fastenough (default: this one)")
    p.add_argument("--clean", action="store_true", help="remove the generated traces at the end")
    a = p.parse_args(argv)
    counts = sorted({int(x) for x in a.ranks.split(",") if x.strip()})
    if not counts or counts[0] < 1:
        p.error("--ranks: positive counts, e.g. 1,4,16,64")
    if a.threads < 1 or a.reps < 1 or a.mb <= 0:
        p.error("--threads and --reps must be >= 1, --mb > 0")

    directory = os.path.join(a.out, f"ranks_{a.mb:g}MB")
    free = shutil.disk_usage(a.out if os.path.isdir(a.out) else HERE).free
    need = max(counts) * a.mb * 1e6
    existing = sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory)
                   if f.endswith(".json")) if os.path.isdir(directory) else 0
    if need - existing > 0.9 * free:
        p.error(f"{max(counts)} ranks of {a.mb:g} MB need {need / 1e9:.1f} GB; "
                f"{free / 1e9:.1f} GB free")
    t0 = time.perf_counter()
    paths = ensure_traces(directory, max(counts), a.mb, max(counts))
    print(f"bench_ranks: {len(paths)} traces of {a.mb:g} MB in {directory} "
          f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    json_bytes = [os.path.getsize(q) for q in paths]

    env = dict(os.environ)
    base_cmd = [a.python, "-c", "import fastenough.cli.analyze, fastenough._core"]
    rounds: dict[int, list[dict]] = {n: [] for n in counts}
    baseline = []
    for rep in range(a.reps):
        baseline.append(run_child(base_cmd, env))
        for n in (counts if rep % 2 == 0 else counts[::-1]):
            cmd = [a.python, "-m", "fastenough", "analyze", "--json", "--no-progress",
                   "--threads", str(a.threads), *paths[:n]]
            r = run_child(cmd, env)
            if r["rc"] not in (0, 1, 5):
                print(f"bench_ranks: analyze of {n} ranks failed (exit {r['rc']}):\n"
                      f"{r['stderr']}", file=sys.stderr)
                return 1
            rounds[n].append(r)
            print(f"  {n:3d} ranks: {r['wall_s']:7.2f} s, peak RSS "
                  f"{r['rss_bytes'] / 2**20:8.1f} MiB", file=sys.stderr)

    base_rss = statistics.median(b["rss_bytes"] for b in baseline)
    rows = []
    for n in counts:
        wall = statistics.median(r["wall_s"] for r in rounds[n])
        rss = statistics.median(r["rss_bytes"] for r in rounds[n])
        total = sum(json_bytes[:n])
        rows.append({"ranks": n, "json_bytes": total, "wall_s": wall, "rss_bytes": rss,
                     "ns_per_byte": wall * 1e9 / total, "mb_per_s": total / 1e6 / wall})
    one = rows[0]
    for row in rows:
        row["rss_ratio"] = row["rss_bytes"] / one["rss_bytes"]
        net_one = one["rss_bytes"] - base_rss
        row["rss_ratio_net"] = (row["rss_bytes"] - base_rss) / net_one if net_one > 0 else None

    print(f"\nfastenough analyze --threads {a.threads}, {a.mb:g} MB of JSON per rank, "
          f"median of {a.reps}; interpreter baseline {base_rss / 2**20:.1f} MiB")
    print(f"| ranks | JSON | wall | ns/byte | MB/s | peak RSS | RSS / {one['ranks']} rank | "
          "net of baseline |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        net = "-" if row["rss_ratio_net"] is None else f"{row['rss_ratio_net']:.2f}x"
        print(f"| {row['ranks']} | {row['json_bytes'] / 1e6:,.0f} MB | {row['wall_s']:.2f} s | "
              f"{row['ns_per_byte']:.2f} | {row['mb_per_s']:.0f} | "
              f"{row['rss_bytes'] / 2**20:,.0f} MiB | {row['rss_ratio']:.2f}x | {net} |")
    last = rows[-1]
    verdict = None
    if last["ranks"] >= 64 and one["ranks"] == 1:
        verdict = last["rss_ratio"] <= TARGET_RSS_RATIO_64
        print(f"\ntarget: peak RSS at {last['ranks']} ranks within {TARGET_RSS_RATIO_64:g}x "
              f"of 1 rank: {last['rss_ratio']:.2f}x, {'met' if verdict else 'NOT met'}")

    result = {
        "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "mb_per_rank": a.mb, "threads": a.threads, "reps": a.reps,
        "baseline_rss_bytes": base_rss, "rows": rows, "target_met": verdict,
    }
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "ranks_results.json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    if a.clean:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
