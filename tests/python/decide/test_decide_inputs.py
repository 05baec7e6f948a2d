"""`fastenough decide`'s inputs (issue 34, items 11 and 15): every plan file,
option and report.json that is not what decide reads ends with exit 2 and one
line naming the file (or option) and what is wrong: never exit 3 with a
traceback, never NaN or Infinity in the JSON it prints or the freeze.json it
writes."""

from __future__ import annotations

import json
import math

import pytest
from decide_runs import decide_run_dir
from report_docs import STEPS, finding_doc, phase_doc, report_doc

from fastenough.cli.main import main


def _cli(capsys, *argv) -> tuple[int, str, str]:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as e:  # argparse's own usage errors
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def _strict_json(text: str):
    """json.loads that refuses NaN/Infinity, as every other JSON reader does."""
    def refuse(name):
        raise ValueError(f"{name} in the output: not JSON")
    return json.loads(text, parse_constant=refuse)


def _one_line_error(rc: int, err: str, *needles: str) -> None:
    assert rc == 2, err
    assert "Traceback" not in err and "internal error" not in err, err
    line = err.strip().splitlines()[-1]
    for needle in needles:
        assert needle in line, err


PLANS = {
    "deep-array": ("a = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
    "deep-table": ("a = " + "{b=" * 100_000 + "1" + "}" * 100_000 + "\n", "nested too deeply"),
    "not-utf8": (b"runs = 5\n# \xff\xfe\n", "not UTF-8"),
    "not-toml": ("runs = = 5\n", "not valid TOML"),
    "runs-word": ('runs = "many"\n', "runs = many: not a whole number"),
    "runs-huge": ("runs = 100000000000000000000000000\n", "runs = 10000000... (27 digits): "
                  "out of range"),
    "runs-negative": ("runs = -1\n", "runs = -1: out of range"),
    "runs-fraction": ("runs = 2.5\n", "runs = 2.5: not a whole number"),
    "runs-bool": ("runs = true\n", "runs = True: not a whole number"),
    "runs-table": ("[runs]\nx = 1\n", "runs = {'x': 1}: not a whole number"),
    "wait-nan": ("runs = 5\nwait_hour_value = nan\n", "wait_hour_value = nan: not a finite"),
    "wait-inf": ("runs = 5\nwait_hour_value = inf\n", "wait_hour_value = inf: not a finite"),
    "wait-minus-inf": ("runs = 5\nwait_hour_value = -inf\n", "not a finite"),
    "wait-zero": ("runs = 5\nwait_hour_value = 0\n", "wait_hour_value = 0: out of range"),
    "wait-huge": ("runs = 5\nwait_hour_value = 1e300\n", "out of range"),
    "wait-word": ('runs = 5\nwait_hour_value = "x"\n', "not a number"),
    "fix-nan": ("runs = 5\n[fix.sync-in-loop]\ndev = nan\n", "fix.sync-in-loop.dev = nan"),
    "fix-inf": ("runs = 5\n[fix.sync-in-loop]\nmaint = inf\n", "fix.sync-in-loop.maint = inf"),
    "fix-negative": ("runs = 5\n[fix.sync-in-loop]\nverify = -1\n", "verify = -1: out of range"),
    "fix-not-table": ("runs = 5\nfix = 3\n", "fix must be tables"),
    "fix-entry-not-table": ("runs = 5\nfix.sync-in-loop = 3\n", "expected a table"),
    "fix-unknown-key": ("runs = 5\n[fix.sync-in-loop]\nhours = 3\n", "unknown key 'hours'"),
    "unknown-key": ("run = 5\n", "unknown key 'run'"),
    "too-large": ("# " + "x" * (1 << 20) + "\nruns = 5\n", "larger than"),
}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_a_plan_that_is_no_plan_is_named_with_what_is_wrong(tmp_path, capsys, name):
    text, message = PLANS[name]
    d = decide_run_dir(tmp_path)
    plan = tmp_path / f"{name}.toml"
    if isinstance(text, bytes):
        plan.write_bytes(text)
    else:
        plan.write_text(text)
    rc, out, err = _cli(capsys, "decide", d, "--plan", plan, "--json")
    _one_line_error(rc, err, f"{name}.toml", message)
    assert out == "" and not (d / "freeze.json").exists()


@pytest.mark.parametrize("argv, message", [
    (["--runs", "1" + "0" * 30], "argument --runs: 10000000... (31 digits): out of range: "
                                 "expected a whole number from 0 to 10**9"),
    (["--runs", "-1"], "argument --runs: '-1': out of range"),
    (["--runs", "2.5"], "argument --runs: '2.5': not a whole number"),
    # Beyond int()'s 4300 digits, and not printed whole.
    (["--runs", "9" * 5000], "argument --runs: 99999999... (5000 digits): out of range"),
    (["--runs", "5", "--wait-value", "nan"], "argument --wait-value: 'nan': not a finite"),
    (["--runs", "5", "--wait-value", "inf"], "argument --wait-value: 'inf': not a finite"),
    (["--runs", "5", "--wait-value", "1e999"], "argument --wait-value: '1e999': not a finite"),
    (["--runs", "5", "--wait-value", "-0"], "argument --wait-value: '-0': out of range"),
    (["--runs", "5", "--fix", "sync-in-loop=nan,0,0"], "--fix sync-in-loop: dev = nan: not a "
                                                       "finite number"),
    (["--runs", "5", "--fix", "sync-in-loop=1,inf,0"], "verify = inf: not a finite number"),
    (["--runs", "5", "--fix", "sync-in-loop=1,0,1e999"], "maint = 1e999: not a finite number"),
    (["--runs", "5", "--fix", "sync-in-loop=1,0,-1"], "maint = -1: out of range"),
    (["--runs", "5", "--fix", "sync-in-loop=1,0"], "expected CODE=DEV,VERIFY,MAINT"),
])
def test_options_out_of_range_or_not_finite_are_usage_errors(tmp_path, capsys, argv, message):
    d = decide_run_dir(tmp_path)
    rc, out, err = _cli(capsys, "decide", d, *argv, "--json")
    _one_line_error(rc, err, message)
    assert out == "" and not (d / "freeze.json").exists()


def test_the_largest_plan_is_decided_and_its_json_is_json(tmp_path, capsys):
    # The bounds themselves are accepted, and nothing they give overflows:
    # 10**9 runs at 10**6 hours each, a fix of 3 x 10**6 hours.
    d = decide_run_dir(tmp_path, saving_ms=1e-6)
    plan = tmp_path / "plan.toml"
    plan.write_text("runs = 1000000000\nwait_hour_value = 1e6\n"
                    "[fix.sync-in-loop]\ndev = 1e6\nverify = 1e6\nmaint = 1e6\n")
    rc, out, err = _cli(capsys, "decide", d, "--plan", plan, "--json")
    assert rc == 0, err
    doc = _strict_json(out)
    assert doc["plan"] == {"remaining_runs": 10**9, "wait_hour_value": 1e6}
    (f,) = doc["fixes"]
    assert f["cost_hours"] == pytest.approx(3e6) and math.isfinite(f["hours_saved"])
    # Nothing pays (a nanosecond a step): freeze.json, strict JSON too.
    rc, out, err = _cli(capsys, "decide", d, "--runs", "0", "--json")
    assert rc == 0, err
    assert _strict_json(out)["any_pays"] is False
    _strict_json((d / "freeze.json").read_text())


def _report_text(**parts) -> str:
    """A valid report (tests/python/report_docs.py) with `parts` replaced."""
    return json.dumps({**report_doc(steps={"count": 10, "steady_median_ns": 1e6},
                                    findings=[finding_doc("x", per_step_ns=1)]), **parts})


# A report must follow the schema (fastenough.report.load names the JSON path of the
# first value wrong); decide then bounds the figures it multiplies.
REPORTS = {
    "deep": ('{"steps": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than"),
    "nan": ('{"steps": {"count": 10, "steady_median_ns": NaN}}', "NaN is not a JSON number"),
    "overflow": ('{"steps": {"count": 10, "steady_median_ns": 1e999}}', "beyond the range"),
    "steps-string": (_report_text(steps="fast"),
                     "report.steps: expected an object, got 'fast'"),
    "count-word": (_report_text(steps={**STEPS, "count": "ten"}),
                   "report.steps.count: expected an integer, got 'ten'"),
    "phases-not-list": (_report_text(phases=3), "report.phases: expected an array, got 3"),
    "phase-negative": (_report_text(phases=[phase_doc("load", -5)]),
                       "phases[0].host_ns = -5"),
    "saving-string": (_report_text(findings=[finding_doc("x", per_step_ns="a")]),
                      "report.findings[0].saving.per_step_ns: expected an integer or null, "
                      "got 'a'"),
    "not-object": ("[1, 2]", "report: expected an object"),
    "not-a-report": ('{"steps": {"count": 10}}', "report.schema: expected"),
    "key-missing": (_report_text(launch=None).replace('"launch": null, ', ""),
                    "report: the required key 'launch' is missing"),
    "count-huge": (_report_text(steps={**STEPS, "count": 10**30}), "out of range"),
    "step-huge": (_report_text(steps={**STEPS, "count": 10, "steady_median_ns": 1e300}),
                  "out of range"),
    "not-utf8": (b'{"steps": "\xff"}', "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_a_damaged_report_json_is_named(tmp_path, capsys, name):
    text, message = REPORTS[name]
    d = tmp_path / "run"
    d.mkdir()
    if isinstance(text, bytes):
        (d / "report.json").write_bytes(text)
    else:
        (d / "report.json").write_text(text)
    try:
        rc, out, err = _cli(capsys, "decide", d, "--runs", "5", "--json")
    finally:  # conftest reads every report.json a test leaves: not this one
        (d / "report.json").unlink()
    _one_line_error(rc, err, str(d / "report.json"), message)
    assert out == ""
