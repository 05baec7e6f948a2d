"""Two devices driven by one process (layers placed across cards): the report
tells "the cards take turns" from "both idle" (docs/method.md;
docs/trace-depth.md, `device_turns`; docs/findings.md, devices-take-turns).
A Kineto-shaped trace written here (no GPU on this machine): each 1 ms step,
card 0 computes [0, 450) us, card 1 [start1, start1 + 450) us."""

from __future__ import annotations

import json

from conftest import run_cli


def _trace(path, start1: float, steps: int = 6) -> None:
    events, corr, ext = [], 0, 0
    base = 1_000_000.0
    for n in range(steps):
        t0 = base + 1000.0 * n
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}",
                       "pid": 1, "tid": 1, "ts": t0, "dur": 1000.0})
        for device, start in ((0, 0.0), (1, start1)):
            corr += 1
            ext += 1
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                           "ts": t0 + 1 + 3 * device, "dur": 2, "args": {"External id": ext}})
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 1, "tid": 1, "ts": t0 + 1.5 + 3 * device, "dur": 1,
                           "args": {"External id": ext, "correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": f"stage{device}_sgemm",
                           "pid": device, "tid": 7, "ts": t0 + start, "dur": 450.0,
                           "args": {"External id": ext, "device": device, "stream": 7,
                                    "correlation": corr}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))


def test_two_cards_taking_turns(tmp_path):
    trace = tmp_path / "turns.json"
    _trace(trace, start1=500.0)
    r = run_cli("analyze", "--json", trace)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    (turns,) = report["device_turns"]["per_rank"]
    # 5 steady steps (the first is warm-up) of 1000 us: 900 us one card works
    # alone, 100 us neither does; overlapped, a step would still take 450 us.
    assert turns["devices"] == [0, 1] and turns["busy_ns"] == [2_250_000, 2_250_000]
    assert (turns["window_ns"], turns["all_busy_ns"], turns["taking_turns_ns"],
            turns["all_idle_ns"], turns["overlap_bound_ns"]) == (
        5_000_000, 0, 4_500_000, 500_000, 2_250_000)
    (f,) = [f for f in report["findings"] if f["code"] == "devices-take-turns"]
    assert f["verdict"] == "avoidable" and f["saving"]["upper_bound"] is True
    assert f["saving"]["per_step_ns"] == 450_000
    assert abs(f["saving"]["share_of_step"] - 0.45) < 1e-9
    assert f["evidence"]["taking_turns_share"] == 0.9
    md = run_cli("analyze", "--md", trace)
    assert "devices-take-turns" in md.stdout and "take turns" in md.stdout


def test_two_cards_working_at_once_take_no_turns(tmp_path):
    trace = tmp_path / "together.json"
    _trace(trace, start1=0.0)
    report = json.loads(run_cli("analyze", "--json", trace).stdout)
    (turns,) = report["device_turns"]["per_rank"]
    assert turns["all_busy_ns"] == 2_250_000 and turns["taking_turns_ns"] == 0
    assert "devices-take-turns" not in {f["code"] for f in report["findings"]}
