#!/usr/bin/env python3
"""Benchmark `fastenough analyze` against a bare simdjson parse and against HTA.

For each size (default 100MB and 1GB) a trace is generated into bench/out/ with
gen_trace.py if it is not there yet; then, in the same run and interleaved
(A B C / C B A / ...: every tool sees the same machine state on average), each
tool runs --reps times as a child process, timed from outside (wall clock) with
its peak RSS taken from os.wait4's rusage:

  parse    cpp/tools/parse_only PATH: read the file + simdjson DOM parse (the floor)
  analyze  python -m fastenough analyze --json --no-progress PATH > /dev/null
  hta      bench/.venv-hta/bin/python bench/hta_run.py DIR: HTA TraceAnalysis load +
           get_temporal_breakdown() + get_idle_time_breakdown() (skipped above
           --hta-max-size: its pandas frames need several times the trace in RAM)

Medians are reported. Targets: analyze <= 2.5x parse; HTA >= 30x analyze;
analyze peak RSS <= 1.5x the uncompressed JSON bytes. Results go to a table on
stdout and to bench/out/results.json.

  python bench/bench_analyze.py                       # 100MB and 1GB, 3 reps
  python bench/bench_analyze.py --sizes 100MB --reps 5
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen_trace  # noqa: E402

HTA_VENV = os.path.join(HERE, ".venv-hta")
HTA_PY = os.path.join(HTA_VENV, "bin", "python")
# HTA 0.5.0 (the newest on PyPI) fails under pandas 3 (it assigns wider integers
# into an int16 column, which pandas 3 refuses); pandas 2.2 only warns.
HTA_PACKAGES = ["HolisticTraceAnalysis", "pandas<2.3"]

TARGET_ANALYZE_OVER_PARSE = 2.5
TARGET_HTA_OVER_ANALYZE = 30.0
TARGET_RSS_OVER_JSON = 1.5


def label_of(size: int) -> str:
    if size % 10**9 == 0:
        return f"{size // 10**9}GB"
    if size % 10**6 == 0:
        return f"{size // 10**6}MB"
    return f"{size}B"


def find_tool(name: str, explicit: str | None, build: bool) -> str | None:
    """Find a cpp/tools program: pip's build dir, build/bench, else build it."""
    if explicit:
        return explicit
    cands = glob.glob(os.path.join(REPO, "build", "*", "cpp", "tools", name))
    cands = [c for c in cands if os.access(c, os.X_OK)]
    if cands:
        return max(cands, key=os.path.getmtime)
    bdir = os.path.join(REPO, "build", "bench")
    standalone = os.path.join(bdir, "parse_only_standalone")
    if name == "parse_only" and os.access(standalone, os.X_OK):
        return standalone
    if not build:
        return None
    print(f"bench: building {name} in {bdir}", file=sys.stderr)
    r = subprocess.run(
        ["cmake", "-S", REPO, "-B", bdir, "-DFASTENOUGH_BUILD_PYTHON=OFF",
         "-DCMAKE_BUILD_TYPE=Release"], capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run(["cmake", "--build", bdir, "--target", name, "-j2"],
                           capture_output=True, text=True)
    path = os.path.join(bdir, "cpp", "tools", name)
    if r.returncode == 0 and os.access(path, os.X_OK):
        return path
    print(f"bench: could not build {name} with CMake:\n{(r.stdout + r.stderr)[-1500:]}",
          file=sys.stderr)
    if name == "parse_only":
        # parse_only needs only simdjson: build it alone when the core does not build
        # (other engineers' work in progress in the shared tree).
        path = os.path.join(bdir, "parse_only_standalone")
        src = os.path.join(REPO, "cpp", "tools", "parse_only_main.cc")
        r = subprocess.run(["g++", "-O3", "-DNDEBUG", "-std=c++20", src, "-lsimdjson", "-o",
                            path], capture_output=True, text=True)
        if r.returncode == 0:
            print(f"bench: built {path} with g++ alone", file=sys.stderr)
            return path
        print(f"bench: g++ parse_only failed: {r.stderr[-800:]}", file=sys.stderr)
    return None


def ensure_hta_venv() -> str | None:
    if os.access(HTA_PY, os.X_OK):
        return HTA_PY
    print(f"bench: creating {HTA_VENV} (pip install {' '.join(HTA_PACKAGES)})",
          file=sys.stderr)
    r = subprocess.run([sys.executable, "-m", "venv", HTA_VENV])
    if r.returncode == 0:
        r = subprocess.run([HTA_PY, "-m", "pip", "install", "-q", *HTA_PACKAGES])
    if r.returncode != 0:
        print("bench: HTA venv could not be set up; HTA is skipped", file=sys.stderr)
        shutil.rmtree(HTA_VENV, ignore_errors=True)
        return None
    return HTA_PY


def run_timed(cmd: list[str], stdout_path: str | None = None, env: dict | None = None,
              timeout: float | None = None) -> dict:
    """Run cmd as a child; wall seconds, peak RSS (bytes) and exit status."""
    out = open(stdout_path or os.devnull, "wb")  # noqa: SIM115
    err_path = os.path.join(HERE, "out", ".stderr.txt")
    err = open(err_path, "wb")  # noqa: SIM115
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
    status = None
    rusage = None
    deadline = None if timeout is None else t0 + timeout
    while True:
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if deadline is not None and time.perf_counter() > deadline:
            proc.kill()
            pid, status, rusage = os.wait4(proc.pid, 0)
            status = -9
            break
        time.sleep(0.005)
    wall = time.perf_counter() - t0
    proc.returncode = 0  # reaped by wait4 already; keep Popen from waiting again
    out.close()
    err.close()
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    code = status if status == -9 else os.waitstatus_to_exitcode(status)
    return {"wall_s": wall, "peak_rss_bytes": rusage.ru_maxrss * 1024, "exit": code,
            "stderr_tail": stderr[-600:], "user_s": rusage.ru_utime, "sys_s": rusage.ru_stime}


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def summarize(samples: list[dict]) -> dict:
    ok = [s for s in samples if s["exit"] == 0]
    return {
        "runs": len(samples),
        "ok_runs": len(ok),
        "median_s": median([s["wall_s"] for s in ok]),
        "min_s": min((s["wall_s"] for s in ok), default=None),
        "max_s": max((s["wall_s"] for s in ok), default=None),
        "samples_s": [round(s["wall_s"], 4) for s in samples],
        "peak_rss_bytes": max((s["peak_rss_bytes"] for s in ok), default=None),
        "median_cpu_s": median([s["user_s"] + s["sys_s"] for s in ok]),
        "errors": sorted({s["stderr_tail"].strip()[-300:] for s in samples if s["exit"] != 0}),
    }


def sanity(report: dict, truth: dict) -> dict:
    """Compare the report's device figures with the generator's ground truth."""
    devs = report.get("devices") or []
    if not devs:
        return {"ok": False, "note": "report has no devices"}
    d = devs[0]
    checks = {}

    def rel(a, b):
        return None if not b else (a - b) / b

    for key, tkey in (("kernel_count", "kernel_count"), ("busy_ns", "device_busy_ns"),
                      ("span_ns", "device_span_ns"), ("idle_ns", "device_idle_ns")):
        if key in d:
            checks[key] = {"report": d[key], "truth": truth[tkey], "rel": rel(d[key], truth[tkey])}
    ok = all(abs(c["rel"] or 0) <= 0.001 for c in checks.values())
    return {"ok": ok, "checks": checks}


def fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:8.2f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100MB,1GB", help="comma-separated (default 100MB,1GB)")
    p.add_argument("--reps", type=int, default=3, help="repetitions per tool (>= 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--streams", type=int, default=4)
    p.add_argument("--hta-max-size", type=gen_trace.parse_size, default=200 * 10**6,
                   help="skip HTA on larger traces (default 200MB)")
    p.add_argument("--hta-timeout", type=float, default=1800.0, help="seconds per HTA run")
    p.add_argument("--no-hta", action="store_true")
    p.add_argument("--parse-only", default=None, help="path of the parse_only program")
    p.add_argument("--load-trace", default=None, help="path of the load_trace program")
    p.add_argument("--no-build", action="store_true", help="never build missing tools")
    p.add_argument("--python", default=sys.executable, help="interpreter with fastenough")
    p.add_argument("--out", default=os.path.join(HERE, "out"))
    a = p.parse_args(argv)
    reps = max(3, a.reps)
    os.makedirs(a.out, exist_ok=True)

    parse_only = find_tool("parse_only", a.parse_only, not a.no_build)
    load_trace = find_tool("load_trace", a.load_trace, False)
    hta_py = None if a.no_hta else ensure_hta_venv()
    notes: list[str] = []
    if parse_only is None:
        notes.append("parse_only not found/built: no bare-parse baseline")

    results = {
        "schema": "fastenough.bench_analyze/1",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "python": platform.python_version()},
        "git": subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip(),
        "reps": reps,
        "targets": {"analyze_over_parse_max": TARGET_ANALYZE_OVER_PARSE,
                    "hta_over_analyze_min": TARGET_HTA_OVER_ANALYZE,
                    "analyze_rss_over_json_max": TARGET_RSS_OVER_JSON},
        "tools": {"parse_only": parse_only, "load_trace": load_trace,
                  "analyze": f"{a.python} -m fastenough analyze --json --no-progress",
                  "hta": hta_py and f"{hta_py} bench/hta_run.py"},
        "sizes": [],
        "notes": notes,
    }
    core = subprocess.run([a.python, "-c", "import fastenough._core as c; print(c.__file__)"],
                          capture_output=True, text=True).stdout.strip()
    if core:
        # A rebuild of the shared module during the run would mix versions: record it.
        results["tools"]["core_module"] = {"path": core, "mtime": os.path.getmtime(core)}
    for size_text in a.sizes.split(","):
        size = gen_trace.parse_size(size_text)
        label = label_of(size)
        path = os.path.join(a.out, f"trace_{label}.json")
        truth_path = path + ".truth.json"
        if not (os.path.exists(path) and os.path.exists(truth_path)):
            print(f"bench: generating {path}", file=sys.stderr)
            gen_trace.generate(path, size, None, a.streams, a.seed, False, None, 1024, 256,
                               quiet=True)
        with open(truth_path) as f:
            truth = json.load(f)
        json_bytes = os.path.getsize(path)
        entry: dict = {"label": label, "path": os.path.relpath(path, REPO),
                       "json_bytes": json_bytes, "events": truth["events"],
                       "kernels": truth["kernel_count"], "notes": []}

        tools: dict[str, list[str]] = {}
        if parse_only:
            tools["parse"] = [parse_only, path]
        tools["analyze"] = [a.python, "-m", "fastenough", "analyze", "--json", "--no-progress",
                            path]
        hta_dir = os.path.join(a.out, f"hta_{label}")
        if hta_py and json_bytes <= a.hta_max_size:
            os.makedirs(hta_dir, exist_ok=True)
            link = os.path.join(hta_dir, "rank0.json")
            if not os.path.lexists(link):
                os.symlink(os.path.abspath(path), link)
            tools["hta"] = [hta_py, os.path.join(HERE, "hta_run.py"), hta_dir]
        elif hta_py:
            entry["notes"].append(
                f"HTA skipped: {json_bytes / 1e6:.0f} MB > --hta-max-size "
                f"{a.hta_max_size / 1e6:.0f} MB (its pandas frames need several times the "
                f"trace in RAM on a shared 24 GB, 2-core machine)")
        if load_trace:
            tools["load_trace"] = [load_trace, path]

        # Warm-up (untimed): page cache, and one analyze run whose report is kept for
        # the sanity check against the generator's ground truth.
        report_path = os.path.join(a.out, f"report_{label}.json")
        warm = run_timed(tools["analyze"], stdout_path=report_path)
        if warm["exit"] == 0:
            try:
                with open(report_path) as f:
                    entry["sanity"] = sanity(json.load(f), truth)
            except (OSError, ValueError) as e:
                entry["sanity"] = {"ok": False, "note": f"report unreadable: {e}"}
        else:
            entry["notes"].append(f"analyze failed (exit {warm['exit']}): "
                                  f"{warm['stderr_tail'].strip()[-300:]}")
        if "parse" in tools:
            run_timed(tools["parse"])

        order = list(tools)
        samples: dict[str, list[dict]] = {k: [] for k in order}
        hta_outputs: list[str] = []
        for r in range(reps):
            seq = order if r % 2 == 0 else list(reversed(order))
            for name in seq:
                if name == "analyze" and warm["exit"] != 0:
                    continue
                hout = os.path.join(a.out, f"hta_{label}.out") if name == "hta" else None
                timeout = a.hta_timeout if name == "hta" else None
                s = run_timed(tools[name], stdout_path=hout, timeout=timeout)
                samples[name].append(s)
                if hout and s["exit"] == 0:
                    with open(hout) as f:
                        hta_outputs.append(f.read().strip().splitlines()[-1])
                print(f"bench: {label} {name:10s} rep {r + 1}/{reps}: {s['wall_s']:.2f}s "
                      f"rss {s['peak_rss_bytes'] / 1e6:.0f} MB exit {s['exit']}",
                      file=sys.stderr)
                if name == "hta" and s["exit"] != 0 and r == 0:
                    entry["notes"].append(f"HTA failed: {s['stderr_tail'].strip()[-300:]}")
                    order.remove("hta")
                    break
        entry["tools"] = {k: summarize(v) for k, v in samples.items() if v}
        if hta_outputs:
            internal = [json.loads(x) for x in hta_outputs]
            entry["tools"]["hta"]["internal_median_s"] = {
                k: median([x[k] for x in internal])
                for k in ("import_s", "load_s", "temporal_s", "idle_s", "total_s")}
        t = entry["tools"]
        am = t.get("analyze", {}).get("median_s")
        pm = t.get("parse", {}).get("median_s")
        hm = t.get("hta", {}).get("median_s")
        rss = t.get("analyze", {}).get("peak_rss_bytes")
        ac = t.get("analyze", {}).get("median_cpu_s")
        pc = t.get("parse", {}).get("median_cpu_s")
        hc = t.get("hta", {}).get("median_cpu_s")
        ratios = {
            # CPU seconds (user + sys of the child) are steadier than wall time on a
            # shared, oversubscribed machine; both are kept.
            "analyze_over_parse_cpu": ac / pc if ac and pc else None,
            "hta_over_analyze_cpu": hc / ac if ac and hc else None,
            "analyze_over_parse": am / pm if am and pm else None,
            "hta_over_analyze": hm / am if am and hm else None,
            "analyze_rss_over_json": rss / json_bytes if rss else None,
            "parse_MBps": json_bytes / 1e6 / pm if pm else None,
            "analyze_MBps": json_bytes / 1e6 / am if am else None,
        }
        entry["ratios"] = ratios
        entry["meets"] = {
            "analyze_over_parse": None if ratios["analyze_over_parse"] is None
            else ratios["analyze_over_parse"] <= TARGET_ANALYZE_OVER_PARSE,
            "hta_over_analyze": None if ratios["hta_over_analyze"] is None
            else ratios["hta_over_analyze"] >= TARGET_HTA_OVER_ANALYZE,
            "analyze_rss_over_json": None if ratios["analyze_rss_over_json"] is None
            else ratios["analyze_rss_over_json"] <= TARGET_RSS_OVER_JSON,
        }
        results["sizes"].append(entry)
        with open(os.path.join(a.out, "results.json"), "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")

    if core and os.path.exists(core) and os.path.getmtime(core) != results["tools"][
            "core_module"]["mtime"]:
        notes.append("fastenough._core was rebuilt during the run: figures mix versions")
        with open(os.path.join(a.out, "results.json"), "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")

    # Table.
    print(f"\nfastenough analyze benchmark ({reps} reps each, interleaved, medians; "
          f"{os.cpu_count()} CPUs; git {results['git']})")
    hdr = (f"{'trace':>7} {'JSON MB':>8} {'events':>9} | {'parse s':>8} {'load s':>8} "
           f"{'analyze s':>9} {'HTA s':>8} | {'an/parse':>8} {'HTA/an':>7} {'RSS/JSON':>8}")
    print(hdr)
    print("-" * len(hdr))
    for e in results["sizes"]:
        t = e["tools"]
        r = e["ratios"]

        def ratio(x, tgt_ok):
            if x is None:
                return f"{'-':>8}"
            return f"{x:7.2f}{'' if tgt_ok is None else (' ' if tgt_ok else '!')}"

        print(f"{e['label']:>7} {e['json_bytes'] / 1e6:8.1f} {e['events']:9d} | "
              f"{fmt_s(t.get('parse', {}).get('median_s'))} "
              f"{fmt_s(t.get('load_trace', {}).get('median_s'))} "
              f" {fmt_s(t.get('analyze', {}).get('median_s'))} "
              f"{fmt_s(t.get('hta', {}).get('median_s'))} | "
              f"{ratio(r['analyze_over_parse'], e['meets']['analyze_over_parse'])} "
              f"{ratio(r['hta_over_analyze'], e['meets']['hta_over_analyze'])} "
              f"{ratio(r['analyze_rss_over_json'], e['meets']['analyze_rss_over_json'])}")
        print(f"{'':>7} {'CPU s':>8} {'':>9} | "
              f"{fmt_s(t.get('parse', {}).get('median_cpu_s'))} "
              f"{fmt_s(t.get('load_trace', {}).get('median_cpu_s'))} "
              f" {fmt_s(t.get('analyze', {}).get('median_cpu_s'))} "
              f"{fmt_s(t.get('hta', {}).get('median_cpu_s'))} | "
              f"{ratio(r['analyze_over_parse_cpu'], None)} "
              f"{ratio(r['hta_over_analyze_cpu'], None)}")
        for n in e["notes"]:
            print(f"        note: {n}")
        if "sanity" in e:
            s = e["sanity"]
            print(f"        sanity vs generator truth: {'ok' if s.get('ok') else 'MISMATCH'} "
                  + json.dumps(s.get("checks", s.get("note")))[:400])
    print(f"targets: analyze/parse <= {TARGET_ANALYZE_OVER_PARSE}, HTA/analyze >= "
          f"{TARGET_HTA_OVER_ANALYZE}, analyze peak RSS/JSON <= {TARGET_RSS_OVER_JSON} "
          "('!' = missed)")
    print(f"results: {os.path.join(a.out, 'results.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
