"""Issue 34 item 13: traces whose numbers no measurement can have. Each one is
written here by a small generator, analysed through the CLI, and its report
must hold every invariant (tests/report_invariants.py, `numbers`): no share of
busy time above 1, no negative launch delay, duration or byte count, no
world_size of 0; the unusable values are counted (exit 5, data lost), and no
finding rests on them. The second half checks that the invariants checker
itself rejects each of those numbers in a report."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from report_invariants import violations  # noqa: E402


def _trace(path: Path, kernels: list[dict], *, steps: int = 4, extra: list[dict] | None = None,
           top: dict | None = None) -> Path:
    """steps ProfilerStep#N windows of 1000 µs, each with one cpu op and its
    launch call; `kernels` are given per step as {"ts": offset µs, "dur": µs,
    "corr": offset} (their launch at offset 100 µs)."""
    events: list[dict] = []
    for n in range(steps):
        t0 = 10_000 + n * 1000
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}",
                       "pid": 1, "tid": 1, "ts": t0, "dur": 1000})
        for i, k in enumerate(kernels):
            corr = n * 100 + k.get("corr", i)
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                           "ts": t0 + 50 + i, "dur": 60, "args": {"External id": corr}})
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 1, "tid": 1, "ts": t0 + 100 + i, "dur": 5,
                           "args": {"correlation": corr, "External id": corr}})
            ts = k["ts"] if k.get("absolute") else t0 + k["ts"]
            events.append({"ph": "X", "cat": "kernel", "name": k.get("name", "gemm"),
                           "pid": 0, "tid": 7, "ts": ts, "dur": k["dur"],
                           "args": {"correlation": corr, "device": 0, "stream": 7}})
    events += extra or []
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 80 << 30,
                                 "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
           **(top or {}), "traceEvents": events}
    # json.dumps writes 1e300 and 2**64-1 as the trace would carry them.
    path.write_text(json.dumps(doc))
    return path


def _analyze(path: Path) -> tuple[int, dict, str]:
    p = subprocess.run([sys.executable, "-m", "fastenough", "analyze", "--json", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout), p.stderr


def _counter(report: dict, name: str) -> int:
    return sum(c["count"] for c in report["counters"] if c["name"] == name)


def test_kernels_over_each_other_on_one_stream_share_at_most_the_busy_time(tmp_path):
    # Two identical kernels at the same timestamp on one stream, every step:
    # share_of_busy was 2 (200k of them: 28572).
    same = [{"ts": 200, "dur": 300, "corr": 0}, {"ts": 200, "dur": 300, "corr": 1}]
    rc, r, _ = _analyze(_trace(tmp_path / "t.json", same))
    assert rc == 0
    assert not violations(r), violations(r)
    k = r["top_kernels"][0]
    assert k["count"] == 8 and k["total_ns"] == 8 * 300_000
    assert k["share_of_busy"] == pytest.approx(1.0)


@pytest.mark.parametrize("case", ["shared-correlation", "negative-timestamp"])
def test_launch_delays_are_never_negative(tmp_path, case):
    if case == "shared-correlation":
        # Both kernels of a step claim the second launch's id: the first
        # starts before that launch.
        ks = [{"ts": 90, "dur": 5, "corr": 1}, {"ts": 300, "dur": 5, "corr": 1}]
    else:
        ks = [{"ts": -2_700_000_000_000, "dur": 5, "absolute": True}]
    rc, r, _ = _analyze(_trace(tmp_path / "t.json", ks))
    assert not violations(r), violations(r)
    for row in r["launch"]["per_rank"]:
        for key in ("launch_delay_median_ns", "launch_delay_p90_ns"):
            assert row[key] is None or row[key] >= 0, (key, row[key])
    assert _counter(r, "kernel_before_launch") >= 1


@pytest.mark.parametrize("dur", [-300, 1e300, 2**64 - 1])
def test_unusable_durations_are_counted_and_make_no_finding(tmp_path, dur):
    # Every kernel's duration impossible: they gave an info counter, exit 0
    # and a gpu-idle-host-bound saving 92.8% of a step.
    rc, r, err = _analyze(_trace(tmp_path / "t.json", [{"ts": 200, "dur": dur}]))
    assert rc == 5, err
    assert "duration_unusable" in err
    assert _counter(r, "duration_unusable") == 4
    assert [c["severity"] for c in r["counters"] if c["name"] == "duration_unusable"] == \
        ["data-loss"]
    assert not [f for f in r["findings"] if f["code"] == "gpu-idle-host-bound"]
    assert not violations(r), violations(r)


def test_allocations_of_2_63_bytes_are_counted_not_summed(tmp_path):
    mem = [{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1,
            "tid": 1, "ts": 10_100 + i,
            "args": {"Device Type": 1, "Device Id": 0, "Addr": 1000 + i, "Bytes": 2**63 - 1}}
           for i in range(50)]
    rc, r, _ = _analyze(_trace(tmp_path / "t.json", [{"ts": 200, "dur": 300}], extra=mem))
    assert rc == 5
    assert _counter(r, "bytes_unusable") == 50
    assert not violations(r), violations(r)
    for m in r["memory"]:
        assert all(s["alloc_bytes"] >= 0 for s in m["steps"])


@pytest.mark.parametrize("info", [{"rank": 0, "world_size": 2**62},
                                  {"rank": 2**62, "world_size": 8},
                                  {"rank": "0; rm -rf /", "world_size": 0}])
def test_rank_and_world_size_out_of_range_are_unknown_and_said(tmp_path, info):
    rc, r, err = _analyze(_trace(tmp_path / "t.json", [{"ts": 200, "dur": 300}],
                                 top={"distributedInfo": {"backend": "nccl", **info}}))
    assert rc == 5, err
    assert _counter(r, "rank_unusable") >= 1
    assert r["meta"]["world_size"] >= 1
    assert not violations(r), violations(r)


# ---- the checker rejects each impossible number ----

def _sound_report(tmp_path: Path) -> dict:
    rc, r, _ = _analyze(_trace(tmp_path / "t.json", [{"ts": 200, "dur": 300}],
                               top={"distributedInfo": {"rank": 0, "world_size": 1}}))
    assert rc == 0 and not violations(r), violations(r)
    return r


def _spoil(r: dict, where: str, value) -> dict:
    bad = copy.deepcopy(r)
    obj = bad
    keys = where.split(".")
    for k in keys[:-1]:
        obj = obj[int(k)] if k.isdigit() else obj[k]
    obj[keys[-1]] = value
    return bad


@pytest.mark.parametrize("where,value,said", [
    ("top_kernels.0.share_of_busy", 2.0, "a share outside [0, 1]"),
    ("top_kernels.0.share_of_busy", 28572.0, "a share outside [0, 1]"),
    ("launch.per_rank.0.launch_delay_median_ns", -2.7e18, "a negative duration"),
    ("devices.0.busy_ns", -5, "a negative duration"),
    ("top_kernels.0.total_ns", -1, "a negative duration"),
    ("steps.per_rank.0.windows.0.dur_ns", -1000, "a negative duration"),
    ("memory", [{"steps": [{"alloc_bytes": -50, "alloc_count": 50}]}],
     "a negative byte count or count"),
    ("top_kernels.0.count", -1, "a negative byte count or count"),
    ("meta.world_size", 0, "world_size = 0"),
    ("efficiency.devices", [{"steady": {"gpu_utilization": 1.5}}], "a share outside [0, 1]"),
])
def test_the_checker_rejects_each_impossible_number(tmp_path, where, value, said):
    r = _sound_report(tmp_path)
    found = violations(_spoil(r, where, value))
    assert any(said in v for v in found), found


def test_the_checker_takes_negative_instants_and_queue_delays(tmp_path):
    r = _sound_report(tmp_path)
    ok = _spoil(_spoil(r, "devices.0.start_ns", -10), "launch.per_rank.0.queue_delay_median_ns",
                -3000)
    assert not violations(ok), violations(ok)
