"""The invariants checker itself (tests/report_invariants.py): it must fail the
reports it exists to catch (each from a defect seen on real programs), and
every corpus and golden trace's report must pass it."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, run_cli
from report_invariants import violations


def finding(code="sync-in-loop", verdict="avoidable", share=0.1, where=None, **kw) -> dict:
    f = {"code": code, "verdict": verdict, "title": "t", "action": "a", "evidence": {},
         "where": where or [], "rank": 0,
         "saving": {"per_step_ns": int(share * 1000), "share_of_step": share, "total_ns": None,
                    "upper_bound": True}}
    f.update(kw)
    return f


def report(*findings, avoidable=None) -> dict:
    r = {"schema": "fastenough.report/1", "findings": list(findings), "meta": {}}
    if avoidable is not None:
        r["avoidable"] = avoidable
    return r


def total(share, n=1, groups=1):
    return [{"rank": 0, "share_of_step": share, "per_step_ns": 0, "findings": n, "groups": groups}]


def test_a_sound_report_passes(tmp_path):
    src = tmp_path / "eval.py"
    src.write_text("def score(model, x):\n    return model(x).item()\n")
    r = report(finding(where=[{"file": str(src), "line": 2, "function": "score"}]),
               avoidable=total(0.1))
    assert violations(r) == []


@pytest.mark.parametrize("where, why", [
    # dataloader-bound located in fastenough's own logits check (issue 22, item 4)
    ({"file": "fastenough/agent/checks/logits.py", "line": 270}, "fastenough's own code"),
    ({"file": "/venv/lib/python3.11/site-packages/pytorch_lightning/trainer/trainer.py",
      "line": 10}, "a library"),
    ({"file": "pytorch_lightning/loops/fit_loop.py", "line": 3}, "a library"),
    ({"file": "<built-in method item>", "line": 1}, "a library"),
    # the demo's "where: ?:0 (?)"
    ({"file": "?", "line": 0}, "made-up"),
])
def test_places_outside_the_users_code_fail(where, why):
    found = violations(report(finding(where=[where]), avoidable=total(0.1)))
    assert any(why in v for v in found), found


def _calls(path, line=2):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("def score(model, x):\n    return model(x).item()\n")
    return report(finding(where=[{"file": str(path), "line": line}]), avoidable=total(0.1))


def test_a_directory_called_fastenough_is_not_our_code(tmp_path):
    # The demo's finding in a checkout cloned as .../fastenough (issue 36: the
    # clone's own name made the demo's workload.py "fastenough's own code").
    demo = tmp_path / "fastenough" / "python" / "fastenough" / "demo" / "workload.py"
    assert violations(_calls(demo)) == []
    # A user's project that happens to be called fastenough.
    assert violations(_calls(tmp_path / "fastenough" / "train.py")) == []


def test_our_package_by_absolute_path_fails():
    import report_invariants

    ours = report_invariants._PACKAGE + "agent/checks/logits.py"
    found = violations(report(finding(where=[{"file": ours, "line": 270}]),
                              avoidable=total(0.1)))
    assert any("fastenough's own code" in v for v in found), found
    demo = report_invariants._PACKAGE + "demo/workload.py"
    found = violations(report(finding(where=[{"file": demo, "line": 156}]),
                              avoidable=total(0.1)))
    assert not any("fastenough's own code" in v for v in found), found


def test_a_def_line_fails_a_call_line_passes(tmp_path):
    # serial-small-gemm at time_sequence_prediction's `def forward` (item 5)
    src = tmp_path / "train.py"
    src.write_text("class Seq:\n    def forward(self, x):\n        return self.linear(x)\n")
    bad = report(finding(where=[{"file": str(src), "line": 2}]), avoidable=total(0.1))
    assert any("def/class/decorator" in v for v in violations(bad))
    good = report(finding(where=[{"file": str(src), "line": 3}]), avoidable=total(0.1))
    assert violations(good) == []
    known_by_def = report(finding(where=[{"file": str(src), "def_line": 2}]), avoidable=total(0.1))
    assert violations(known_by_def) == []


def test_savings_adding_up_to_more_than_a_step_fail():
    # small-kernels and gpu-idle-host-bound each claiming 98% (item 7)
    a = finding("small-kernels", share=0.98)
    b = finding("gpu-idle-host-bound", share=0.98)
    found = violations(report(a, b, avoidable=total(1.0, 2, 2)))
    assert any("more than the step" in v for v in found), found
    a["overlaps"], b["overlaps"] = ["gpu-idle-host-bound"], ["small-kernels"]
    assert violations(report(a, b, avoidable=total(0.98, 2, 1))) == []


def test_overlaps_are_mutual_and_known():
    a = finding("padding-waste", overlaps=["full-vocab-logits"])
    b = finding("full-vocab-logits")
    found = violations(report(a, b, avoidable=total(0.1, 2, 1)))
    assert any("not the other way round" in v for v in found), found
    c = finding("padding-waste", overlaps=["no-such-finding"])
    assert any("no finding of its rank" in v for v in violations(report(c, avoidable=total(0.1))))


def test_a_bounded_verdict_denying_avoidable_findings_fails():
    # step-bound's "nothing here is avoidable" under an 81% padding finding (item 8)
    bound = finding("step-bound", verdict="bounded", share=0.0,
                    action="Nothing here is avoidable waste: the step is bound by its work.")
    found = violations(report(finding("padding-waste", share=0.807), bound,
                              avoidable=total(0.807)))
    assert any("beside avoidable findings" in v for v in found), found


def test_the_reports_total_must_match():
    found = violations(report(finding(share=0.3), avoidable=total(0.5)))
    assert any("avoidable total" in v for v in found), found
    assert any("no 'avoidable' total" in v for v in violations(report(finding(share=0.3))))


def test_texts_naming_our_code_fail():
    f = finding(evidence={"inside": "fastenough/agent/step_timer.py"})
    assert any("names fastenough's own code" in v
               for v in violations(report(f, avoidable=total(0.1))))


def test_every_golden_and_corpus_report_passes(corpus_dir):
    traces = sorted(p for p in corpus_dir.rglob("*.json*") if p.is_file())
    traces += sorted((DATA / "golden").glob("*.json"))
    checked = 0
    for path in traces:
        if path.name.endswith(".expected.json"):
            continue
        r = run_cli("analyze", path, "--json", timeout=600)
        if r.returncode not in (0, 1) or not r.stdout.lstrip().startswith("{"):
            continue  # not a trace (the corpus holds other files too)
        doc = json.loads(r.stdout)
        assert violations(doc) == [], (path, violations(doc))
        checked += 1
    assert checked >= 10


def test_a_saving_beyond_the_critical_path_is_caught():
    # Path window: 2 steps of 1000 ns; the finding's events hold 100 ns a step
    # of the path and 50 ns a step are unexplained: at most 0.15 of a step.
    path = {"per_rank": [{"rank": 0, "status": "ok", "window_ns": 2000,
                          "steps": [{"number": 1}, {"number": 2}]}]}
    ev = {"own_critical_path_ns_per_step": 100, "critical_path_unexplained_ns_per_step": 50}
    ok = report(finding("small-kernels", share=0.15, evidence=dict(ev)), avoidable=total(0.15))
    ok["critical_path"] = path
    assert violations(ok) == []
    bad = report(finding("small-kernels", share=0.4, evidence=dict(ev)), avoidable=total(0.4))
    bad["critical_path"] = path
    assert any("critical path" in v for v in violations(bad)), violations(bad)


# Issue 37, item 4: splits that add up, one step reference per report.
def _bound(**shares) -> dict:
    ev = {"mode": "train", **shares}
    return finding("step-bound", verdict="bounded", share=0.0, evidence=ev)


def test_a_step_split_over_the_whole_step_fails():
    # cleanrl PPO before the fix: forward 80%, backward 20%, optimizer 33%.
    bad = _bound(forward_share=0.8, backward_share=0.2, optimizer_share=0.33, data_share=0.0,
                 other_share=0.0)
    found = violations(report(bad))
    assert any("add up to 133% of the step" in v for v in found), found
    ok = _bound(forward_share=0.42, backward_share=0.51, optimizer_share=0.01, data_share=0.0,
                other_share=0.06)
    assert violations(report(ok)) == []


def _run_report(*findings, median=15_500_000) -> dict:
    r = report(*findings, avoidable=total(sum(f["saving"]["share_of_step"] for f in findings
                                              if f["verdict"] == "avoidable")))
    r["run"] = {"run_dir": "/tmp/x"}
    r["steps"] = {"steady_median_ns": median, "mode": "train"}
    return r


def test_a_saving_priced_against_another_step_fails():
    # The demo: serial-small-gemm "<= 1.41 ms/step (1.6% of a step)" beside a
    # 15.5 ms steady median: its share was of the 88.8 ms profiled step.
    gemm = finding("serial-small-gemm", share=1_410_000 / 88_800_000)
    gemm["saving"]["per_step_ns"] = 1_410_000
    found = violations(_run_report(gemm))
    assert any("priced against another step" in v for v in found), found
    # The same share, its time per step that share of the steady median: sound.
    gemm["saving"]["per_step_ns"] = round(gemm["saving"]["share_of_step"] * 15_500_000)
    gemm["evidence"] = {"step_reference_ns": 15_500_000, "measured_per_step_ns": 1_410_000}
    assert violations(_run_report(gemm)) == []
    # A finding that names another reference.
    gemm["evidence"]["step_reference_ns"] = 88_800_000
    found = violations(_run_report(gemm))
    assert any("not the report's step reference" in v for v in found), found
