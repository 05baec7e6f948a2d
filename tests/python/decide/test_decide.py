"""`fastenough decide`: arithmetic on synthetic run dirs, and the real demo run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from decide_runs import decide_finding, decide_run_dir
from report_docs import phase_doc, report_doc

from fastenough.cli.main import main


def _json(capsys, *argv):
    assert main(["decide", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_fix_that_pays(tmp_path, capsys):
    # 50 runs x 10 ms x 36000 steps = 18000 s = 5 h saved; cost 2 + 1 + 0.5 = 3.5 h.
    d = decide_run_dir(tmp_path)
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
    d = decide_run_dir(tmp_path, step_ms=400, steps=100, load_s=600, warmup_s=300, saving_ms=200)
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
    d = decide_run_dir(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text("runs = 100\nwait_hour_value = 0.5\n")
    out = _json(capsys, str(d), "--plan", str(plan))
    (f,) = out["fixes"]
    assert f["budget_hours"] == pytest.approx(5.0)
    assert f["verdict"] == "within-budget"
    assert f["cost_hours"] is None


def test_missing_runs_errors_with_flag(tmp_path, capsys):
    d = decide_run_dir(tmp_path)
    assert main(["decide", str(d)]) == 2
    assert "--runs N" in capsys.readouterr().err


def test_bad_fix_and_missing_dir(tmp_path, capsys):
    d = decide_run_dir(tmp_path)
    assert main(["decide", str(d), "--runs", "5", "--fix", "sync-in-loop=2"]) == 2
    assert "CODE=DEV,VERIFY,MAINT" in capsys.readouterr().err
    assert main(["decide", str(tmp_path / "nope"), "--runs", "5"]) == 2


def test_reopen_names_step_threshold(tmp_path, capsys):
    # median 40 ms, p90 48 ms -> band 8 ms -> threshold 48.0 ms.
    d = decide_run_dir(tmp_path)
    assert main(["decide", str(d), "--reopen"]) == 0
    text = capsys.readouterr().out
    assert "steady step time above 48.0 ms" in text
    assert "out-of-memory" in text


def test_the_run_is_the_measured_one_start_up_included(tmp_path, capsys):
    # Issue 24: 255 steps x 118.8 ms + 1.16 s of load and warm-up is 31.44 s,
    # but the run took 51.68 s, 13.43 s of it start-up: a fix of every step
    # is 58.6% of the run, not 96%.
    d = decide_run_dir(tmp_path, step_ms=118.8, steps=255, load_s=0.66, warmup_s=0.5,
                 saving_ms=118.8)
    report = json.loads((d / "report.json").read_text())
    run = report_doc(run={"wall_ns": 51_680_000_000})
    report.update({k: run[k] for k in ("run", "measurement", "run_details")})
    report["phases"].append(phase_doc("startup", 13_430_000_000))
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
    d = decide_run_dir(tmp_path, step_ms=1.0, steps=1000, saving_ms=0.0100)
    report = json.loads((d / "report.json").read_text())
    report["findings"] += map(decide_finding, [
        {"code": "sync-in-loop", "verdict": "avoidable", "saving": {"per_step_ns": 4500}},
        {"code": "autograd-in-eval", "verdict": "avoidable", "title": "eval builds graphs",
         "saving": None},
        # What bounds the step is no fix: not priced, not listed.
        {"code": "step-bound", "verdict": "bounded", "saving": {"per_step_ns": 0}}])
    (d / "report.json").write_text(json.dumps(report))
    out = _json(capsys, str(d), "--runs", "5", "--fix", "sync-in-loop=0.1,0.05,0")
    (f,) = out["fixes"]
    assert f["saving_per_run_ns"] == pytest.approx(14500 * 1000)
    assert "14.5 µs/step" in f["arithmetic"]
    assert "cost 0.1 dev + 0.05 verify + 0 maint = 0.15 h" in f["arithmetic"]
    assert f["cost_hours"] == pytest.approx(0.15)
    assert out["unpriced"] == [{"code": "autograd-in-eval", "title": "eval builds graphs"}]
    assert main(["decide", str(d), "--runs", "5"]) == 0
    assert "Not priced: autograd-in-eval" in capsys.readouterr().out


def test_reopen_says_when_nothing_was_frozen(tmp_path, capsys):
    d = decide_run_dir(tmp_path)
    assert main(["decide", str(d), "--reopen"]) == 0
    assert "Nothing was frozen" in capsys.readouterr().out
    # 1 run of 36000 x 10 ms = 0.1 h saved against a 1 h fix: frozen.
    assert main(["decide", str(d), "--runs", "1", "--fix", "sync-in-loop=1,0,0"]) == 0
    capsys.readouterr()
    assert main(["decide", str(d), "--reopen"]) == 0
    text = capsys.readouterr().out
    assert "Nothing was frozen" not in text and "Worth asking again when" in text


def test_freeze_records_the_environment(tmp_path, capsys):
    d = decide_run_dir(tmp_path)
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


def _with_findings(parent, findings, **kw):
    parent.mkdir(exist_ok=True)
    d = decide_run_dir(parent, **kw)
    report = json.loads((d / "report.json").read_text())
    report["findings"] = [decide_finding(f) for f in findings]
    (d / "report.json").write_text(json.dumps(report))
    return d


# A .item() per step whose 5 us never pays, beside findings the trace did not price.
_CHEAP_SYNC = {"code": "sync-in-loop", "verdict": "avoidable", "saving": {"per_step_ns": 5000}}
_TRAIN_MODE = {"code": "train-mode-in-eval", "verdict": "avoidable", "saving": None,
               "title": "6 dropout/batch-norm modules left in training mode during evaluation"}
_AUTOGRAD = {"code": "autograd-in-eval", "verdict": "avoidable", "saving": None,
             "title": "Autograd graph recorded in 41 of 41 examined forwards"}


def test_a_finding_that_changes_results_comes_first_and_nothing_is_frozen(tmp_path, capsys):
    # Issue 37: an evaluation in train mode was told "Nothing pays for itself
    # over 50 runs: freeze this version". The catalog marks train-mode-in-eval
    # as changing results: decide says so first and prices the rest after.
    d = _with_findings(tmp_path, [_TRAIN_MODE, _CHEAP_SYNC, _AUTOGRAD], step_ms=5.0, steps=60)
    out = _json(capsys, str(d), "--runs", "50")
    assert out["recommendation"] == "fix-first"
    assert out["fix_first"] == [{"code": "train-mode-in-eval", "title": _TRAIN_MODE["title"]}]
    assert [f["code"] for f in out["fixes"]] == ["sync-in-loop"]
    assert out["fixes"][0]["verdict"] == "not-worth-it" and not out["any_pays"]
    assert out["unpriced"] == [{"code": "autograd-in-eval", "title": _AUTOGRAD["title"]}]
    assert "freeze" not in out and not (d / "freeze.json").exists()
    assert main(["decide", str(d), "--runs", "50"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("Fix train-mode-in-eval first: it changes your results"), text
    assert "freeze this version" not in text and not (d / "freeze.json").exists()
    assert "Not priced: autograd-in-eval" in text and "sync-in-loop" in text
    # Priced, even at a large saving, it is still no question of hours.
    priced = dict(_TRAIN_MODE, saving={"per_step_ns": 4e6})
    d2 = _with_findings(tmp_path / "priced", [priced], step_ms=5.0, steps=60)
    out = _json(capsys, str(d2), "--runs", "1")
    assert out["recommendation"] == "fix-first" and out["fixes"] == []


def test_a_finding_without_a_saving_is_measured_not_frozen(tmp_path, capsys):
    d = _with_findings(tmp_path, [_CHEAP_SYNC, _AUTOGRAD], step_ms=5.0, steps=60)
    out = _json(capsys, str(d), "--runs", "50")
    assert out["recommendation"] == "measure" and out["fix_first"] == []
    assert "freeze" not in out and not (d / "freeze.json").exists()
    assert main(["decide", str(d), "--runs", "50"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "autograd-in-eval has no saving estimate: not a reason to stop" in text, text
    assert "fastenough ab" in text and "freeze this version" not in text
    # With the unpriced finding gone and nothing paying, decide freezes.
    d2 = _with_findings(tmp_path / "frozen", [_CHEAP_SYNC], step_ms=5.0, steps=60)
    out = _json(capsys, str(d2), "--runs", "50")
    assert out["recommendation"] == "freeze" and (d2 / "freeze.json").is_file()


EVAL_IN_TRAIN_MODE = """\
import torch

torch.manual_seed(0)
torch.set_num_threads(1)


class Classifier(torch.nn.Module):
    def __init__(self, vocab=500, dim=64, classes=4):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        layer = torch.nn.TransformerEncoderLayer(dim, 4, 128, dropout=0.1, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(dim, classes)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


model = Classifier()  # never model.eval(): dropout stays on
data = torch.randint(0, 500, (60, 16, 32))
labels = torch.randint(0, 4, (60, 16))
correct = 0
for tokens, y in zip(data, labels):
    logits = model(tokens)  # no torch.no_grad(): a graph per batch
    correct += (logits.argmax(-1) == y).sum().item()  # a sync per batch
print("accuracy", correct / labels.numel())
"""


def test_an_evaluation_left_in_train_mode_is_never_frozen(tmp_path):
    # Issue 37 on a real run: a TransformerEncoder classifier scored in train
    # mode, autograd on, .item() per batch, under `fastenough run`; decide with
    # 50 runs left said "freeze" before (nothing priced paid).
    pytest.importorskip("torch")
    (tmp_path / "eval.py").write_text(EVAL_IN_TRAIN_MODE)
    env = {k: v for k, v in os.environ.items() if k != "FASTENOUGH_RUN_DIR"}
    env["OMP_NUM_THREADS"] = "1"
    run_dir = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "fastenough", "run", "--quiet", "--run-dir",
                           str(run_dir), "--", sys.executable, "eval.py"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((run_dir / "report.json").read_text())
    assert "train-mode-in-eval" in {f["code"] for f in report["findings"]}, report["findings"]
    decide = [sys.executable, "-m", "fastenough", "decide", str(run_dir), "--runs", "50"]
    proc = subprocess.run([*decide, "--json"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["recommendation"] == "fix-first", out
    assert out["fix_first"][0]["code"] == "train-mode-in-eval"
    assert "freeze" not in out and not (run_dir / "freeze.json").exists()
    # A finding without a saving (autograd-in-eval unless a probe priced it)
    # is named to be measured.
    unpriced = {f["code"] for f in report["findings"] if f["verdict"] == "avoidable"
                and (f.get("saving") or {}).get("per_step_ns") is None} - {"train-mode-in-eval"}
    assert {u["code"] for u in out["unpriced"]} == unpriced
    proc = subprocess.run(decide, env={**env, "COLUMNS": "100"}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert text.startswith("Fix train-mode-in-eval first: it changes your results"), text
    assert "freeze" not in text.lower().replace("not frozen", ""), text
    assert not (run_dir / "freeze.json").exists()
