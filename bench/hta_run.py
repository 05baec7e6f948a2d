"""Run Holistic Trace Analysis on one trace directory; print one JSON line of results.

Runs inside bench/.venv-hta (HTA needs pandas etc. that fastenough does not), started
by bench_analyze.py and compare_hta.py as a child process so its time and peak RSS
are measured from outside:

  bench/.venv-hta/bin/python bench/hta_run.py DIR [--include-last-step]

Output (stdout, last line): {"load_s", "temporal_s", "idle_s", "total_s",
"temporal": [per-rank rows], "idle": [per rank/stream/category rows], "hta_version"}.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("trace_dir")
    p.add_argument("--include-last-step", action="store_true",
                   help="keep the last ProfilerStep (HTA drops it by default)")
    p.add_argument("--skip-idle", action="store_true")
    a = p.parse_args()
    logging.disable(logging.WARNING)
    t0 = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis

    t_import = time.perf_counter()
    ta = TraceAnalysis(trace_dir=a.trace_dir,
                       include_last_profiler_step=a.include_last_step)
    t_load = time.perf_counter()
    temporal = ta.get_temporal_breakdown(visualize=False)
    t_temp = time.perf_counter()
    idle_rows: list[dict] = []
    if not a.skip_idle:
        for rank in sorted(ta.t.traces):
            idle_df, _ = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)
            idle_rows.extend(idle_df.to_dict(orient="records"))
    t_idle = time.perf_counter()
    try:
        from importlib.metadata import version

        hv = version("HolisticTraceAnalysis")
    except Exception:  # noqa: BLE001
        hv = "?"

    def clean(rows: list[dict]) -> list[dict]:
        out = []
        for r in rows:
            out.append({k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()})
        return out

    # What HTA kept of each rank's device activity (events with a stream), by
    # category: lets compare_hta.py tell dropped events from definition changes.
    sym = ta.t.symbol_table.get_sym_table()
    gpu_events = {}
    for rank, df in ta.t.traces.items():
        g = df[df["stream"].ne(-1)]
        cats = g["cat"].map(lambda i: sym[i] if 0 <= i < len(sym) else str(i))
        gpu_events[str(rank)] = {str(k): int(v) for k, v in cats.value_counts().items()}
    res = {
        "hta_version": hv,
        "gpu_events": gpu_events,
        "import_s": t_import - t0,
        "load_s": t_load - t_import,
        "temporal_s": t_temp - t_load,
        "idle_s": t_idle - t_temp,
        "total_s": t_idle - t_import,
        "temporal": clean(temporal.to_dict(orient="records")),
        "idle": clean(idle_rows),
    }
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
