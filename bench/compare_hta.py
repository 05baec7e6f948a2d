#!/usr/bin/env python3
"""Compare HTA's temporal and idle-time breakdowns with `fastenough analyze --json`.

For every corpus trace (default /work/shared/corpus/hta) that HTA can load, each in
its own temporary directory (HTA takes a directory of rank files), this runs
bench/hta_run.py in bench/.venv-hta twice:

  shipped  HTA as it ships, except include_last_profiler_step=True (HTA drops the
           last ProfilerStep by default; fastenough keeps every event)
  exact    the same with HTA_DISABLE_NS_ROUNDING=1 (HTA otherwise rounds float
           microsecond timestamps: ts up, end down, to whole microseconds)

and `python -m fastenough analyze --json` on the same file, then compares the
figures whose definitions are shared, per rank:

  span     HTA kernel_time      = fastenough devices[].span_ns
  idle     HTA idle_time        = fastenough idle_ns
  compute  HTA compute_time     = fastenough compute_ns
  noncomp  HTA non_compute_time = fastenough busy_ns - compute_ns
  host     HTA idle breakdown host_wait, summed over streams = idle_breakdown.host_wait_ns
  kwait    ... kernel_wait = idle_breakdown.kernel_wait_ns
  other    ... other       = idle_breakdown.other_ns
  kw+oth   kwait + other: the stream gaps that are not host wait, independent of the
           kernel-wait threshold (HTA's 30 is in trace microseconds, fastenough's 30 ns)

Relative differences above 1% are flagged with '!'. Results also go to
bench/out/compare_hta.json. bench/README.md explains the differences found.

  python bench/compare_hta.py [--corpus DIR] [--only SUBSTRING] [--mode shipped|exact|both]
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_analyze import ensure_hta_venv  # noqa: E402

DEFAULT_CORPUS = "/work/shared/corpus/hta"
FLAG = 0.01
FIELDS = ["span", "idle", "compute", "noncomp", "host", "kwait", "other", "kw+oth"]


def hta_figures(out: dict) -> dict[int, dict]:
    """Per rank, HTA's figures in ns (HTA reports microseconds)."""
    per: dict[int, dict] = {}
    for row in out["temporal"]:
        r = int(row["rank"])
        per[r] = {
            "span": row["kernel_time(us)"] * 1000,
            "idle": row["idle_time(us)"] * 1000,
            "compute": row["compute_time(us)"] * 1000,
            "noncomp": row["non_compute_time(us)"] * 1000,
            "host": 0.0, "kwait": 0.0, "other": 0.0, "streams": {},
        }
    key = {"host_wait": "host", "kernel_wait": "kwait", "other": "other"}
    for row in out["idle"]:
        r = int(row["rank"])
        if r not in per:
            continue
        k = key.get(row["idle_category"])
        if k is None:
            continue
        v = (row["idle_time"] or 0) * 1000
        per[r][k] += v
        per[r]["streams"].setdefault(str(int(row["stream"])), {})[k] = v
    for f in per.values():
        f["kw+oth"] = f["kwait"] + f["other"]
    return per


def fe_figures(report: dict) -> dict[int, dict]:
    per: dict[int, dict] = {}
    for d in report.get("devices", []):
        r = int(d.get("rank", 0) if d.get("rank") is not None else 0)
        ib = d.get("idle_breakdown") or {}
        cur = per.setdefault(r, {f: 0 for f in FIELDS} | {"streams": {}, "devices": 0,
                                                             "events": 0})
        cur["devices"] += 1
        cur["span"] += d.get("span_ns", 0)
        cur["idle"] += d.get("idle_ns", 0)
        cur["compute"] += d.get("compute_ns", 0)
        cur["noncomp"] += d.get("busy_ns", 0) - d.get("compute_ns", 0)
        cur["host"] += ib.get("host_wait_ns", 0)
        cur["kwait"] += ib.get("kernel_wait_ns", 0)
        cur["other"] += ib.get("other_ns", 0)
        cur["kw+oth"] += ib.get("kernel_wait_ns", 0) + ib.get("other_ns", 0)
        cur["events"] += (d.get("kernel_count", 0) + d.get("memcpy_count", 0)
                          + d.get("memset_count", 0))
        for s in d.get("streams", []):
            cur["streams"][str(s["stream"])] = {"host": s.get("host_wait_ns", 0),
                                                "kwait": s.get("kernel_wait_ns", 0),
                                                "other": s.get("other_ns", 0),
                                                "ops": s.get("op_count", 0)}
    return per


def rel(a: float, b: float) -> float | None:
    """(fastenough - HTA) / HTA; None when both are zero."""
    if b == 0:
        return None if a == 0 else float("inf")
    return (a - b) / b


def run_hta(hta_py: str, path: str, exact: bool, timeout: float) -> tuple[dict | None, str]:
    d = tempfile.mkdtemp(prefix="fe_hta_")
    try:
        name = "rank0.json.gz" if path.endswith(".gz") else "rank0.json"
        os.symlink(os.path.abspath(path), os.path.join(d, name))
        env = dict(os.environ)
        if exact:
            env["HTA_DISABLE_NS_ROUNDING"] = "1"
        try:
            r = subprocess.run([hta_py, os.path.join(HERE, "hta_run.py"), d,
                                "--include-last-step"], capture_output=True, text=True,
                               env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"HTA timed out after {timeout:.0f}s"
        lines = r.stdout.strip().splitlines()
        if r.returncode != 0 or not lines:
            err = [x for x in r.stderr.strip().splitlines() if x.strip()]
            return None, "HTA failed: " + (err[-1][:200] if err else f"exit {r.returncode}")
        return json.loads(lines[-1]), ""
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_fe(python: str, path: str) -> tuple[dict | None, str]:
    r = subprocess.run([python, "-m", "fastenough", "analyze", "--json", "--no-progress", path],
                       capture_output=True, text=True)
    if not r.stdout.strip():
        err = [x for x in r.stderr.strip().splitlines() if x.strip()]
        return None, "fastenough failed: " + (err[-1][:200] if err else f"exit {r.returncode}")
    try:
        return json.loads(r.stdout), ""
    except ValueError as e:
        return None, f"fastenough output not JSON: {e}"


def explain(fe: dict, hta: dict, hta_exact: dict | None, gpu_events: dict, has_float_ts: bool
            ) -> list[str]:
    """Best-effort reasons for the differences, from the numbers themselves."""
    why = []
    hta_n = sum(v for k, v in gpu_events.items() if k != "cuda_sync")
    syncs = gpu_events.get("cuda_sync", 0)
    if fe.get("events") and hta_n < fe["events"]:
        why.append(f"HTA kept {hta_n} of {fe['events']} device ops (it drops ops whose launch "
                   "is not in the trace or started after the last ProfilerStep)")
    if syncs:
        why.append(f"HTA counts {syncs} cuda_sync events as busy device time in the temporal "
                   "breakdown")
    if has_float_ts and hta_exact is not None:
        d_sh = abs(rel(fe["idle"], hta["idle"]) or 0)
        d_ex = abs(rel(fe["idle"], hta_exact["idle"]) or 0)
        if d_ex < d_sh:
            why.append("HTA rounds sub-microsecond timestamps (ts up, end down): each op "
                       "shrinks by up to 1 us")
    device_cats = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset",
                   "cuda_sync", "mtia_ccp_events"}
    odd = {k: v for k, v in gpu_events.items() if k not in device_cats}
    if odd:
        why.append(f"HTA counts host events that carry a 'stream' arg as device time: {odd} "
                   "(e.g. Triton/inductor cpu_op launches)")
    if "mtia_ccp_events" in gpu_events and hta["noncomp"] > 0 and fe["noncomp"] == 0:
        why.append("HTA classes MTIA 'dma*' ops as memory (non-compute); fastenough as "
                   "compute")
    if hta["kwait"] < 0:
        why.append("HTA adds the negative 'gaps' of overlapping ops on one stream into "
                   "kernel wait; fastenough counts positive gaps only")
    if abs(fe["kwait"] - hta["kwait"]) > 0.01 * max(1.0, abs(hta["kwait"])):
        why.append("kernel-wait threshold: HTA compares gaps in trace microseconds with 30 "
                   "(30 us); fastenough uses 30 ns")
    return why


def fmt_rel(x: float | None) -> str:
    if x is None:
        return "      ="
    if x == float("inf"):
        return "   new!"
    flag = "!" if abs(x) > FLAG else " "
    return f"{100 * x:+6.1f}{flag}" if abs(x) < 10 else f"{x:+5.0f}x{flag}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=DEFAULT_CORPUS)
    p.add_argument("--only", default=None, help="only traces whose path contains this")
    p.add_argument("--mode", choices=["shipped", "exact", "both"], default="both")
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--out", default=os.path.join(HERE, "out", "compare_hta.json"))
    a = p.parse_args(argv)
    if not os.path.isdir(a.corpus):
        print(f"compare_hta: corpus {a.corpus} not found; nothing to compare", file=sys.stderr)
        return 0
    hta_py = ensure_hta_venv()
    if hta_py is None:
        return 1
    paths = sorted(glob.glob(os.path.join(a.corpus, "**", "*.json*"), recursive=True))
    paths = [x for x in paths if x.endswith((".json", ".json.gz"))]
    if a.only:
        paths = [x for x in paths if a.only in x]
    rows = []
    for path in paths:
        rp = os.path.relpath(path, a.corpus)
        entry: dict = {"trace": rp, "notes": []}
        rows.append(entry)
        fe_report, err = run_fe(a.python, path)
        if fe_report is None:
            entry["notes"].append(err)
        modes = ["shipped", "exact"] if a.mode == "both" else [a.mode]
        hta_out = {}
        for m in modes:
            out, err = run_hta(hta_py, path, m == "exact", a.timeout)
            if out is None:
                entry["notes"].append(f"{m}: {err}")
                break
            hta_out[m] = out
        print(f"compare_hta: {rp}: " + ("; ".join(entry["notes"]) or "ok"), file=sys.stderr)
        if fe_report is None or not hta_out:
            continue
        fe = fe_figures(fe_report)
        fmt = (fe_report.get("inputs") or [{}])[0].get("format")
        entry["format"] = fmt
        # Float timestamps ("ts": 123.456) are what HTA rounds; cheap check on the text.
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", errors="replace") as f:
            head = f.read(2_000_000)
        has_float_ts = re.search(r'"ts":\s*-?\d+\.\d', head) is not None
        entry["float_ts"] = has_float_ts
        entry["ranks"] = []
        per_mode = {m: hta_figures(o) for m, o in hta_out.items()}
        main_mode = modes[0]
        for rank in sorted(set(per_mode[main_mode]) | set(fe)):
            h = per_mode[main_mode].get(rank)
            f = fe.get(rank)
            if h is None or f is None:
                entry["notes"].append(f"rank {rank}: only in "
                                      f"{'fastenough' if h is None else 'HTA'}")
                continue
            rr = {"rank": rank, "fastenough": {k: f[k] for k in FIELDS},
                  "hta": {m: {k: per_mode[m][rank][k] for k in FIELDS}
                          for m in per_mode if rank in per_mode[m]},
                  "rel": {m: {k: rel(f[k], per_mode[m][rank][k]) for k in FIELDS}
                          for m in per_mode if rank in per_mode[m]},
                  "streams": {"fastenough": f["streams"],
                              "hta": per_mode[main_mode][rank]["streams"]},
                  "hta_gpu_events": hta_out[main_mode]["gpu_events"].get(str(rank), {}),
                  "fastenough_device_ops": f["events"]}
            rr["why"] = explain(f, h, per_mode.get("exact", {}).get(rank),
                                rr["hta_gpu_events"], has_float_ts)
            entry["ranks"].append(rr)

    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as fh:
        json.dump({"schema": "fastenough.compare_hta/1", "flag_above": FLAG,
                   "traces": rows}, fh, indent=2)
        fh.write("\n")

    for m in (["shipped", "exact"] if a.mode == "both" else [a.mode]):
        print(f"\nHTA ({m}) vs fastenough: relative difference (fastenough - HTA) / HTA in %, "
              f"'!' above {100 * FLAG:.0f}%, '=' both zero")
        hdr = f"{'trace':50s} {'rank':>4} " + " ".join(f"{k:>7s}" for k in FIELDS)
        print(hdr)
        print("-" * len(hdr))
        for e in rows:
            if not e.get("ranks"):
                print(f"{e['trace'][:50]:50s}    -  skipped: {'; '.join(e['notes'])[:90]}")
                continue
            for rr in e["ranks"]:
                if m not in rr["rel"]:
                    continue
                cells = " ".join(fmt_rel(rr["rel"][m][k]) for k in FIELDS)
                print(f"{e['trace'][:50]:50s} {rr['rank']:>4} {cells}")
    print("\nreasons found (per trace):")
    for e in rows:
        for rr in e.get("ranks", []):
            flagged = [k for k in FIELDS for m in rr["rel"]
                       if rr["rel"][m][k] is not None and abs(rr["rel"][m][k]) > FLAG]
            if flagged and rr["why"]:
                print(f"  {e['trace']} rank {rr['rank']}: " + "; ".join(rr["why"]))
    print(f"\nresults: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
