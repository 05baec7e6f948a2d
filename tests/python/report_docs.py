"""Schema-valid fastenough.report/1 documents for tests of the report's readers
(fastenough.report.load refuses anything else): the parts a test needs, the rest
empty. Unlike report_fixtures.py (renderer figures), every document here loads."""

from __future__ import annotations

STEPS = {"count": 0, "median_ns": None, "p10_ns": None, "p90_ns": None, "steady_count": 0,
         "steady_median_ns": None, "steady_p10_ns": None, "steady_p90_ns": None,
         "steady_steps_per_s": None, "items_per_s": None, "tokens_per_s": None,
         "real_tokens_per_s": None, "mode": None, "per_rank": []}
META = {"device_properties": [], "world_size": 1, "backend": "", "base_time_ns": None}
MEASUREMENT = {"status": "complete", "processes": 1, "steady_steps": 0, "reasons": [],
               "tool_pause_ns": 0, "tool_pauses": 0, "profile_cost_ns": 0,
               "profile_peak_rss_rise_bytes": 0}


def report_doc(*, steps: dict | None = None, meta: dict | None = None,
               measurement: dict | None = None, run: dict | None = None, **parts) -> dict:
    """A report holding `parts`; with `measurement` or `run` a run's report (run,
    measurement and run_details together, as the schema wants them)."""
    doc = {"schema": "fastenough.report/1", "tool_version": "0.1.0", "inputs": [],
           "meta": {**META, **(meta or {})}, "counters": [], "phases": [],
           "steps": {**STEPS, **(steps or {})}, "devices": [], "top_kernels": [],
           "top_ops": [], "top_ops_by_self": [],
           "launch": {"kernel_count": 0, "launched_count": 0, "short_kernel_count": 0,
                      "per_rank": []},
           "shapes": [], "findings": [], "decision": None}
    doc.update(parts)
    if measurement is not None or run is not None:
        doc["run"] = {"command": ["python", "x.py"], "exit_status": 0, "signal": None,
                      "wall_ns": None, "run_dir": "/r", "missing": [], **(run or {})}
        doc["measurement"] = {**MEASUREMENT, **(measurement or {})}
        doc["run_details"] = {"phases": [], "steps_per_rank": [], "steps_by_mode": [],
                              "traces": [], "problems": []}
    return doc


def finding_doc(code: str, verdict: str = "avoidable", per_step_ns: int | None = None, *,
                title: str = "t", share: float | None = None, **more) -> dict:
    """A finding; per_step_ns None is a finding the trace did not price."""
    return {"code": code, "verdict": verdict, "title": title or "t", "source": "trace",
            "evidence": {}, "where": [],
            "saving": {"per_step_ns": per_step_ns, "share_of_step": share, "total_ns": None,
                       "upper_bound": True},
            "action": "the fix", "rank": None, **more}


def phase_doc(name: str, host_ns: int | None, rank: int = 0) -> dict:
    return {"name": name, "rank": rank, "start_ns": 0, "end_ns": host_ns or 0,
            "host_ns": host_ns, "device_busy_share": None, "util_mean": None,
            "power_mean_w": None, "mem_used_max": None, "alloc_peak": None,
            "reserved_peak": None}
