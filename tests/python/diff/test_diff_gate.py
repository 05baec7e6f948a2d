"""`fastenough diff A B --max-regression PCT`: the regression gate on synthetic run
directories with planted step times (hand-computed intervals), its "not
comparable" answers, and two real `fastenough run` runs whose steps differ by a
planted sleep."""

from __future__ import annotations

import json
import math
import sys
import textwrap
from pathlib import Path
from statistics import NormalDist

import pytest
from conftest import run_cli
from diff_runs import N, make_run, planted


def gate(a, b, pct="10", *extra):
    r = run_cli("diff", str(a), str(b), "--max-regression", pct, "--json", *extra)
    assert "Traceback" not in r.stderr, r.stderr
    return r, json.loads(r.stdout)["gate"]


def hand_slowdown_interval(ratio: float, n: int = N) -> tuple[float, float]:
    """The interval of a planted ratio between two planted runs, by hand: c =
    round(n/2 - sqrt(n)) = 14 for n = 40, the order statistics y_(14), y_(27) of
    the factors, z from the binomial tail, se on each side, sqrt(2) se together."""
    c = round(n / 2 - math.sqrt(n))
    tail = sum(math.comb(n, i) for i in range(c)) / 2 ** n
    z = NormalDist().inv_cdf(1 - tail)
    factors = sorted(0.95 + 0.1 * k / (n - 1) for k in range(n))
    se = math.log(factors[n - c] / factors[c - 1]) / (2 * z)
    half = NormalDist().inv_cdf(0.975) * math.sqrt(2) * se
    return (ratio * math.exp(-half) - 1) * 100, (ratio * math.exp(half) - 1) * 100


def test_equal_runs_pass(tmp_path):
    a = make_run(tmp_path / "a", planted(10))
    b = make_run(tmp_path / "b", planted(10))
    r, g = gate(a, b)
    assert r.returncode == 0, r.stderr
    assert g["status"] == "ok" and g["unit"] == "item"
    assert g["ratio"] == 1.0 and g["slowdown_pct"] == 0.0
    assert g["a"]["source"] == "steps.jsonl" and g["a"]["steady_steps"] == N
    assert g["a"]["median_ns"] == pytest.approx(10e6 / 32)  # per item: 10 ms over 32 items
    assert g["reasons"] == [] and g["protocol_changes"] == []
    assert g["verdict"].startswith("ok: B's steady time per item is 1.000x A's")


def test_thirty_percent_slower_with_five_percent_noise_is_a_regression(tmp_path):
    a = make_run(tmp_path / "a", planted(10))
    b = make_run(tmp_path / "b", planted(13))
    r, g = gate(a, b)
    assert r.returncode == 1, r.stderr
    assert g["status"] == "regression"
    assert g["ratio"] == pytest.approx(1.3, rel=1e-6)
    low, high = hand_slowdown_interval(1.3)
    assert g["slowdown_low_pct"] == pytest.approx(low, rel=1e-6)
    assert g["slowdown_high_pct"] == pytest.approx(high, rel=1e-6)
    assert g["slowdown_low_pct"] == pytest.approx(27.130258451460354, rel=1e-6)
    assert "regression: B's steady time per item is 1.300x A's" in r.stderr
    assert "at least 27.1% slower, more than the 10% allowed" in g["verdict"]
    # The text view says it too, and exits the same way.
    text = run_cli("diff", str(a), str(b), "--max-regression", "10")
    assert text.returncode == 1
    assert "Regression gate (--max-regression 10%): regression" in text.stdout


def test_five_percent_slower_within_ten_passes(tmp_path):
    a = make_run(tmp_path / "a", planted(10))
    b = make_run(tmp_path / "b", planted(10.5))
    r, g = gate(a, b)
    assert r.returncode == 0, r.stderr
    assert g["status"] == "ok"
    low, high = hand_slowdown_interval(1.05)
    assert g["slowdown_low_pct"] == pytest.approx(low, rel=1e-6)  # 2.68%
    assert g["slowdown_high_pct"] == pytest.approx(high, rel=1e-6)  # 7.37%
    # The same runs against a 2% budget: the whole interval lies above it.
    r2, g2 = gate(a, b, "2")
    assert r2.returncode == 1 and g2["status"] == "regression"


def test_a_batch_size_change_is_not_comparable(tmp_path):
    a = make_run(tmp_path / "a", planted(10), items=32)
    b = make_run(tmp_path / "b", planted(10), items=64)
    r, g = gate(a, b)
    assert r.returncode == 2
    assert g["status"] == "not-comparable"
    (change,) = g["protocol_changes"]
    assert change["field"] == "batch size (items per steady step)"
    assert (change["a"], change["b"], change["blocking"]) == (32, 64, True)
    assert g["reasons"][0].startswith("batch size (items per steady step): A 32, B 64")
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("fastenough: not comparable: batch size (items per steady step): "
                           "A 32, B 64"), r.stderr


def test_five_steady_steps_are_not_comparable(tmp_path):
    a = make_run(tmp_path / "a", planted(10, 5))
    b = make_run(tmp_path / "b", planted(10))
    r, g = gate(a, b)
    assert r.returncode == 2
    assert g["status"] == "not-comparable"
    assert g["a"]["steady_steps"] == 5
    assert g["reasons"] == ["A has 5 steady step(s) with a usable time, fewer than 10: too few "
                            "for a median and its spread; run more steps"]
    assert "fastenough: not comparable: A has 5 steady step(s)" in r.stderr


def test_another_device_is_not_comparable(tmp_path):
    a = make_run(tmp_path / "a", planted(10), device="cpu")
    b = make_run(tmp_path / "b", planted(10), device="cuda")
    r, g = gate(a, b)
    assert r.returncode == 2 and g["status"] == "not-comparable"
    assert [c["field"] for c in g["protocol_changes"]] == ["device"]


def test_report_files_alone_use_their_quantiles(tmp_path):
    # report.json files without their steps: the interval comes from p10/p90
    # (log-normal reading), here sigma_log from the planted +-5% spread.
    a = make_run(tmp_path / "a", planted(10))
    b = make_run(tmp_path / "b", planted(13))
    ra, rb = tmp_path / "ra" / "report.json", tmp_path / "rb" / "report.json"
    for src, dst in ((a, ra), (b, rb)):
        dst.parent.mkdir()
        dst.write_text((src / "report.json").read_text())
    r, g = gate(ra, rb)
    assert r.returncode == 1, r.stderr
    assert g["a"]["source"] == "report" and g["b"]["source"] == "report"
    rep = json.loads(ra.read_text())["steps"]
    sigma = (math.log(rep["steady_p90_ns"]) - math.log(rep["steady_p10_ns"])) / (
        2 * NormalDist().inv_cdf(0.9))
    se = math.sqrt(math.pi / 2) * sigma / math.sqrt(N)
    assert g["a"]["log_se"] == pytest.approx(se, rel=1e-6)
    assert g["ratio"] == pytest.approx(1.3, rel=1e-6)
    half = NormalDist().inv_cdf(0.975) * math.sqrt(2) * se
    assert g["slowdown_low_pct"] == pytest.approx((1.3 * math.exp(-half) - 1) * 100, rel=1e-6)
    doc = json.loads(r.stdout)
    assert doc["a"]["kind"] == "report" and doc["trace"] is None
    assert doc["run"]["steady_time_per_item_ns"]["ratio"] == pytest.approx(1.3, rel=1e-6)


@pytest.mark.parametrize("args, needle", [
    (["--max-regression", "-5"], "argument --max-regression: '-5': out of range"),
    (["--max-regression", "10", "--confidence", "1.5"], "argument --confidence: '1.5': out of "
                                                        "range"),
])
def test_usage_errors(tmp_path, args, needle):
    a = make_run(tmp_path / "a", planted(10))
    r = run_cli("diff", str(a), str(a), *args)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_gate_needs_two_runs(tmp_path):
    a = make_run(tmp_path / "a", planted(10))
    trace = Path(__file__).resolve().parents[2] / "data" / "diff" / "a.json"
    r = run_cli("diff", str(a), str(trace), "--max-regression", "10")
    assert r.returncode == 2
    assert "--max-regression compares two runs" in r.stderr and "Traceback" not in r.stderr


# ---- two real runs ----

# Each step is a model call and a planted sleep: 10 ms on A, 30 ms on B (20 ms
# more, far above what a busy machine adds to a sleep).
PROGRAM = textwrap.dedent("""
    import sys, time, torch
    sleep_s = float(sys.argv[1])
    torch.set_num_threads(1)
    model = torch.nn.Linear(16, 16).eval()
    x = torch.randn(8, 16)
    with torch.inference_mode():
        for _ in range(70):
            model(x)
            time.sleep(sleep_s)
""")


def test_real_runs_with_a_planted_sleep(tmp_path):
    pytest.importorskip("torch")
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)

    def run(name: str, sleep_s: float) -> Path:
        d = tmp_path / name
        r = run_cli("run", "--quiet", "--no-trace", "--no-history", "--run-dir", str(d), "--",
                    sys.executable, str(prog), str(sleep_s), cwd=tmp_path, timeout=600,
                    env={"OMP_NUM_THREADS": "1"})
        assert r.returncode == 0, r.stderr[-3000:]
        return d

    a, a_again, b = run("a", 0.010), run("a2", 0.010), run("b", 0.030)
    r, g = gate(a, b)
    assert r.returncode == 1, (r.stderr, g)
    assert g["status"] == "regression" and g["a"]["source"] == "steps.jsonl"
    assert g["a"]["steady_steps"] >= 10 and g["b"]["steady_steps"] >= 10
    assert g["slowdown_low_pct"] > 10
    r, g = gate(a, a_again, "50")
    assert r.returncode == 0, (r.stderr, g)
    assert g["status"] == "ok"


def test_no_empty_findings_table_when_nothing_changed(tmp_path):
    # Two runs without a changed finding: a line says so, no empty table is drawn.
    a = make_run(tmp_path / "a", planted(10))
    b = make_run(tmp_path / "b", planted(10))
    r = run_cli("diff", str(a), str(b), cwd=tmp_path, env={"COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    assert "Findings: none in either run" in r.stdout
    assert "saving/step A" not in r.stdout
    md = run_cli("diff", str(a), str(b), "--md", cwd=tmp_path).stdout
    assert "Findings: none in either run" in md and "| saving/step A" not in md
