"""A run directory with a synthetic report.json for the `fastenough decide` tests
(test_decide, test_decide_inputs, test_fifo_inputs)."""

from __future__ import annotations

import json

from report_docs import finding_doc, phase_doc, report_doc


def decide_finding(f: dict) -> dict:
    """A finding written as {code, verdict, saving: {per_step_ns} or None, title}, whole."""
    per_step = (f.get("saving") or {}).get("per_step_ns")
    return finding_doc(f["code"], f["verdict"], None if per_step is None else round(per_step),
                       title=f.get("title", "t"))


def decide_run_dir(tmp_path, step_ms=40.0, steps=36000, load_s=0.0, warmup_s=0.0, saving_ms=10.0):
    d = tmp_path / "run"
    d.mkdir()
    report = report_doc(
        meta={"command": ["python", "eval.py"], "fastenough_version": "0.1.0",
              "agent_opts": {"trace": True}},
        phases=[phase_doc("load", round(load_s * 1e9)),
                phase_doc("warmup", round(warmup_s * 1e9))],
        steps={"count": steps, "median_ns": step_ms * 1e6, "steady_median_ns": step_ms * 1e6,
               "steady_p10_ns": 0.9 * step_ms * 1e6, "steady_p90_ns": 1.2 * step_ms * 1e6},
        findings=[decide_finding({"code": "sync-in-loop", "verdict": "avoidable",
                            "saving": {"per_step_ns": saving_ms * 1e6}})],
    )
    (d / "report.json").write_text(json.dumps(report))
    return d
