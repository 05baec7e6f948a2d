"""Run directories for the `fastenough diff` tests, written by hand: report.json
(its steps summary), steps.jsonl with planted step times, and optionally a
hand-made Kineto trace in trace/."""

from __future__ import annotations

import json
import math
from pathlib import Path

from report_docs import report_doc

N = 40  # steady steps of a synthetic run


def planted(ms: float, n: int = N) -> list[float]:
    """n step times (ns) around `ms` with planted +-5% noise: the factors
    0.95 + 0.1 k / (n - 1), k = 0..n-1, scrambled (k = 7 i mod n)."""
    return [ms * 1e6 * (0.95 + 0.1 * ((7 * i) % n) / (n - 1)) for i in range(n)]


def _quantile(values: list[float], p: float) -> float:
    v = sorted(values)
    h = (len(v) - 1) * p
    lo = math.floor(h)
    return v[lo] + (h - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])


def make_run(path: Path, steady_ns: list[float], items: int = 32, *, device: str = "cpu",
             warmup: int = 5, mode: str = "eval", profile: int = 0,
             trace: dict | None = None) -> Path:
    """A run directory as `fastenough run` leaves it, as far as the diff reads it
    (times in whole nanoseconds, so figures match the planted ones to ~1e-7):
    report.json (its steps summary) and steps.jsonl (warm-up, then steady steps)."""
    path.mkdir(parents=True)
    rows, t = [], 1_000_000_000
    phases = ["warmup"] * warmup + ["steady"] * len(steady_ns) + ["profile"] * profile
    for i, (d, phase) in enumerate(zip([50e6] * warmup + steady_ns + [50e6] * profile, phases,
                                       strict=True)):
        rows.append({"rank": 0, "pid": 1, "index": i, "start_mono_ns": t,
                     "end_mono_ns": t + int(d), "items": items, "tokens": None,
                     "source": "module", "phase": phase, "mode": mode})
        t += int(d)
    (path / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    durations = [r["end_mono_ns"] - r["start_mono_ns"] for r in rows if r["phase"] == "steady"]
    if trace is not None:
        (path / "trace").mkdir()
        (path / "trace" / "rank0.pt.trace.json").write_text(json.dumps(trace))
    n, total_s = len(durations), sum(durations) / 1e9
    figures = {"median_ns": _quantile(durations, 0.5), "p10_ns": _quantile(durations, 0.1),
               "p90_ns": _quantile(durations, 0.9)}
    report = report_doc(
        meta={"world_size": 1, "agents": [{"pid": 1, "role": "main", "torch": "2.5.0",
                                           "devices": [{"device": device, "name": "x"}]}]},
        steps={"count": len(rows), "steady_count": n,
               **{f"steady_{k}": v for k, v in figures.items()},
               "steady_steps_per_s": n / total_s, "items_per_s": n * items / total_s,
               "tokens_per_s": None, "mode": mode},
        measurement={"status": "complete", "steady_steps": n})
    # run_details.steps_per_rank holds whole nanoseconds (schema: ns)
    report["run_details"]["steps_per_rank"] = [{
        "rank": 0, "steps": len(rows), "mode": mode, "steady_count": n,
        **{k: round(v) for k, v in figures.items()}, "span_ns": t - 1_000_000_000,
        "steady_ns": sum(durations), "steps_per_s": n / total_s,
        "items_per_s": n * items / total_s, "tokens_per_s": None, "source": "module"}]
    (path / "report.json").write_text(json.dumps(report, indent=1))
    return path


