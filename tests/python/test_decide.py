"""`fastenough decide`: arithmetic on synthetic run dirs, and the real demo run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fastenough.cli.main import main


def _run_dir(tmp_path, step_ms=40.0, steps=36000, load_s=0.0, warmup_s=0.0, saving_ms=10.0):
    d = tmp_path / "run"
    d.mkdir()
    report = {
        "schema": "fastenough.report/1", "tool_version": "0.1.0",
        "meta": {"command": ["python", "eval.py"], "fastenough_version": "0.1.0",
                 "agent_opts": {"trace": True}},
        "phases": [{"name": "load", "rank": 0, "host_ns": load_s * 1e9},
                   {"name": "warmup", "rank": 0, "host_ns": warmup_s * 1e9}],
        "steps": {"count": steps, "median_ns": step_ms * 1e6, "steady_median_ns": step_ms * 1e6,
                  "steady_p10_ns": 0.9 * step_ms * 1e6, "steady_p90_ns": 1.2 * step_ms * 1e6},
        "findings": [{"code": "sync-in-loop", "verdict": "avoidable",
                      "saving": {"per_step_ns": saving_ms * 1e6}}],
    }
    (d / "report.json").write_text(json.dumps(report))
    return d


def _json(capsys, *argv):
    assert main(["decide", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_fix_that_pays(tmp_path, capsys):
    # 50 runs x 10 ms x 36000 steps = 18000 s = 5 h saved; cost 2 + 1 + 0.5 = 3.5 h.
    d = _run_dir(tmp_path)
    out = _json(capsys, str(d), "--runs", "50", "--fix", "sync-in-loop=2,1,0.5")
    assert out["schema"] == "fastenough.decide/1"
    (f,) = out["fixes"]
    assert f["hours_saved"] == pytest.approx(5.0)
    assert f["cost_hours"] == pytest.approx(3.5)
    assert f["verdict"] == "do-it"
    assert not (d / "freeze.json").exists()


def test_load_and_compile_dominate_nothing_pays_writes_freeze(tmp_path, capsys):
    # Run = 600 s load + 300 s warmup + 100 x 0.4 s = 940 s; saving 100 x 0.2 s = 20 s/run;
    # 50 runs -> 1000 s = 0.278 h < 1 h of work.
    d = _run_dir(tmp_path, step_ms=400, steps=100, load_s=600, warmup_s=300, saving_ms=200)
    out = _json(capsys, str(d), "--runs", "50", "--fix", "sync-in-loop=1,0,0")
    (f,) = out["fixes"]
    assert out["one_time_ns"] == pytest.approx(900e9)
    assert f["hours_saved"] == pytest.approx(1000 / 3600)
    assert f["share_of_run"] == pytest.approx(20 / 940)
    assert f["verdict"] == "not-worth-it"
    assert not out["any_pays"]
    freeze = json.loads((d / "freeze.json").read_text())
    assert freeze["command"] == ["python", "eval.py"]
    assert freeze["figures"]["load_ns"] == pytest.approx(600e9)
    assert freeze["date"]


def test_plan_toml_and_budget_without_cost(tmp_path, capsys):
    # 100 runs x 10 ms x 36000 = 10 h, x 0.5 for the waiting hour = 5 h budget.
    d = _run_dir(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text("runs = 100\nwait_hour_value = 0.5\n")
    out = _json(capsys, str(d), "--plan", str(plan))
    (f,) = out["fixes"]
    assert f["budget_hours"] == pytest.approx(5.0)
    assert f["verdict"] == "within-budget"
    assert f["cost_hours"] is None


def test_missing_runs_errors_with_flag(tmp_path, capsys):
    d = _run_dir(tmp_path)
    assert main(["decide", str(d)]) == 2
    assert "--runs N" in capsys.readouterr().err


def test_bad_fix_and_missing_dir(tmp_path, capsys):
    d = _run_dir(tmp_path)
    assert main(["decide", str(d), "--runs", "5", "--fix", "sync-in-loop=2"]) == 2
    assert "CODE=DEV,VERIFY,MAINT" in capsys.readouterr().err
    assert main(["decide", str(tmp_path / "nope"), "--runs", "5"]) == 2


def test_reopen_names_step_threshold(tmp_path, capsys):
    # median 40 ms, p90 48 ms -> band 8 ms -> threshold 48.0 ms.
    d = _run_dir(tmp_path)
    assert main(["decide", str(d), "--reopen"]) == 0
    text = capsys.readouterr().out
    assert "steady step time above 48.0 ms" in text
    assert "out-of-memory" in text


def test_the_run_is_the_measured_one_start_up_included(tmp_path, capsys):
    # Issue 24: 255 steps x 118.8 ms + 1.16 s of load and warm-up is 31.44 s,
    # but the run took 51.68 s, 13.43 s of it start-up: a fix of every step
    # is 58.6% of the run, not 96%.
    d = _run_dir(tmp_path, step_ms=118.8, steps=255, load_s=0.66, warmup_s=0.5,
                 saving_ms=118.8)
    report = json.loads((d / "report.json").read_text())
    report["run"] = {"wall_ns": 51.68e9}
    report["phases"].append({"name": "startup", "rank": 0, "host_ns": 13.43e9})
    (d / "report.json").write_text(json.dumps(report))
    out = _json(capsys, str(d), "--runs", "10")
    assert out["run_ns"] == pytest.approx(51.68e9)
    (f,) = out["fixes"]
    assert f["share_of_run"] == pytest.approx(255 * 118.8e6 / 51.68e9)
    assert main(["decide", str(d), "--runs", "10"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "= 51.68 s (measured)" in text, text
    assert "start-up 13.43 s" in text


def test_every_avoidable_finding_is_priced_or_named(tmp_path, capsys):
    # Two sync-in-loop findings are one fix, their savings summed; a finding
    # without an estimated saving is named, not dropped; 14.5 us keeps its unit.
    d = _run_dir(tmp_path, step_ms=1.0, steps=1000, saving_ms=0.0100)
    report = json.loads((d / "report.json").read_text())
    report["findings"] += [
        {"code": "sync-in-loop", "verdict": "avoidable", "saving": {"per_step_ns": 4500}},
        {"code": "autograd-in-eval", "verdict": "avoidable", "title": "eval builds graphs",
         "saving": None},
        # What bounds the step is no fix: not priced, not listed.
        {"code": "step-bound", "verdict": "bounded", "saving": {"per_step_ns": 0}}]
    (d / "report.json").write_text(json.dumps(report))
    out = _json(capsys, str(d), "--runs", "5", "--fix", "sync-in-loop=0.1,0.05,0")
    (f,) = out["fixes"]
    assert f["saving_per_run_ns"] == pytest.approx(14500 * 1000)
    assert "14.5 us/step" in f["arithmetic"]
    assert "cost 0.1 dev + 0.05 verify + 0 maint = 0.15 h" in f["arithmetic"]
    assert f["cost_hours"] == pytest.approx(0.15)
    assert out["unpriced"] == [{"code": "autograd-in-eval", "title": "eval builds graphs"}]
    assert main(["decide", str(d), "--runs", "5"]) == 0
    assert "Not priced: autograd-in-eval" in capsys.readouterr().out


def test_reopen_says_when_nothing_was_frozen(tmp_path, capsys):
    d = _run_dir(tmp_path)
    assert main(["decide", str(d), "--reopen"]) == 0
    assert "Nothing was frozen" in capsys.readouterr().out
    # 1 run of 36000 x 10 ms = 0.1 h saved against a 1 h fix: frozen.
    assert main(["decide", str(d), "--runs", "1", "--fix", "sync-in-loop=1,0,0"]) == 0
    capsys.readouterr()
    assert main(["decide", str(d), "--reopen"]) == 0
    text = capsys.readouterr().out
    assert "Nothing was frozen" not in text and "Worth asking again when" in text


def test_freeze_records_the_environment(tmp_path, capsys):
    d = _run_dir(tmp_path)
    (d / "agent").mkdir()
    (d / "agent" / "7.json").write_text(json.dumps({
        "pid": 7, "role": "main", "python": "3.11.7", "torch": "2.13.0", "cuda": "12.8",
        "libraries": {"transformers": "4.57.0", "numpy": "2.1.0"}}))
    _json(capsys, str(d), "--runs", "1", "--fix", "sync-in-loop=1,0,0")
    env = json.loads((d / "freeze.json").read_text())["environment"]
    assert env == {"python": "3.11.7", "torch": "2.13.0", "cuda": "12.8",
                   "libraries": {"transformers": "4.57.0", "numpy": "2.1.0"}}


def test_decide_on_demo_run(tmp_path):
    pytest.importorskip("torch")
    env = {k: v for k, v in os.environ.items() if k != "FASTENOUGH_RUN_DIR"}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.run(
        [sys.executable, "-m", "fastenough", "demo", "--no-trace", "--items", "32",
         "--device", "cpu", "--out", str(tmp_path / "scores.json")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = (tmp_path / ".fastenough" / "runs").iterdir()
    proc = subprocess.run([sys.executable, "-m", "fastenough", "decide", str(run_dir),
                           "--runs", "50", "--json"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["fixes"], "the wasteful demo has findings with savings"
    for f in out["fixes"]:
        assert f["verdict"] in {"do-it", "within-budget", "not-worth-it"}
        assert "50 runs x" in f["arithmetic"]


def test_the_agent_records_the_libraries_the_program_imported():
    import numpy

    from fastenough.agent.process_record import loaded_library_versions

    versions = loaded_library_versions()
    assert versions["numpy"] == numpy.__version__
    # Never imported by the recording itself.
    assert all(name in sys.modules for name in versions)
