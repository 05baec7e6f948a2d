"""Every kind of fastenough.report/1 the project produces validates against the
JSON Schema shipped in the package (python/fastenough/schema/report.schema.json),
and the schema is strict enough to refuse a report with a wrong type or a
missing required key.

Kinds: `analyze --json` of every bundled and test trace (each format), of
several ranks at once, of the golden inputs; `run` reports of the demo, of a
program that crashes, of one killed by a signal, of one that never imports
torch and of one in which no step is found.
"""

from __future__ import annotations

import copy
import gzip
import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import DATA, REPO, run_cli

jsonschema = pytest.importorskip("jsonschema")

from fastenough.schema import report_schema  # noqa: E402

TRACES = sorted(
    [*(REPO / "examples" / "traces").glob("*.json*"), *(DATA / "traces").glob("*.json*")]
)
GOLDEN = sorted(
    p for p in (DATA / "golden").glob("*.json") if not p.name.endswith(".expected.json")
)
RANKS = [DATA / "detectors" / "straggler_rank0.json", DATA / "detectors" / "straggler_rank1.json"]


@pytest.fixture(scope="module")
def validator():
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(validator, report: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message[:300]}"
            for e in validator.iter_errors(report)]


def _analyze(*paths: Path) -> dict:
    r = run_cli("analyze", "--json", *paths)
    # 1: the trace had error counters; 5: data was lost reading it (a cut file)
    assert r.returncode in (0, 1, 5), r.stderr
    return json.loads(r.stdout)


def test_the_schema_is_found_in_the_package():
    schema = report_schema()
    assert schema["properties"]["schema"]["const"] == "fastenough.report/1"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_analyze_of_each_trace(validator, trace):
    report = _analyze(trace)
    assert report["inputs"] and report["inputs"][0]["events"] > 0
    assert _errors(validator, report) == []


def test_analyze_of_several_ranks(validator):
    report = _analyze(*RANKS)
    assert report["meta"]["world_size"] == 2 and len(report["inputs"]) == 2
    assert "straggler-rank" in [f["code"] for f in report["findings"]]
    assert _errors(validator, report) == []


@pytest.mark.parametrize("trace", GOLDEN, ids=lambda p: p.name)
def test_analyze_of_the_golden_inputs(validator, trace):
    assert _errors(validator, _analyze(trace)) == []


def test_analyze_of_a_truncated_trace(validator, tmp_path):
    """A damaged trace still gives a report: its events so far and a data-loss counter."""
    text = gzip.decompress((REPO / "examples" / "traces" / "train_a100_rank3.json.gz").read_bytes())
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: len(text) // 2])
    report = _analyze(cut)
    assert ("file_truncated", "data-loss") in {(c["name"], c["severity"])
                                                for c in report["counters"]}
    assert _errors(validator, report) == []


# --------------------------------------------------------------------- runs

def _run_report(tmp_path: Path, body: str, *opts: str) -> tuple[int, dict]:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(body))
    out = tmp_path / "report.json"
    r = run_cli("run", "--no-history", "--json", str(out), *opts, "--", sys.executable,
                str(script), cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    assert out.exists(), r.stderr
    return r.returncode, json.loads(out.read_text())


def test_run_of_a_program_that_never_imports_torch(validator, tmp_path):
    rc, report = _run_report(tmp_path, "print('hello')\n")
    assert rc == 0 and report["measurement"]["status"] == "blind"
    assert _errors(validator, report) == []


needs_torch = pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch") is None, reason="torch not installed")


@needs_torch
def test_run_with_no_steps(validator, tmp_path):
    rc, report = _run_report(tmp_path, "import torch\nprint(torch.ones(2).sum().item())\n",
                             "--no-trace")
    assert rc == 0
    assert [x["code"] for x in report["measurement"]["reasons"]] == ["no-steps"]
    assert report["steps"]["count"] == 0 and report["steps"]["median_ns"] is None
    assert _errors(validator, report) == []


LOOP = """
    import os, signal, torch
    model = torch.nn.Linear(16, 4)
    with torch.no_grad():
        for i in range(40):
            model(torch.randn(8, 16))
    {end}
"""


@needs_torch
def test_run_of_a_program_that_crashes(validator, tmp_path):
    rc, report = _run_report(tmp_path, LOOP.format(end="raise RuntimeError('boom')"),
                             "--no-trace")
    assert rc == 1 and report["run"]["exit_status"] == 1 and report["run"]["signal"] is None
    assert report["steps"]["steady_count"] > 0
    assert _errors(validator, report) == []


@needs_torch
def test_run_of_a_program_killed_by_a_signal(validator, tmp_path):
    rc, report = _run_report(tmp_path, LOOP.format(end="os.kill(os.getpid(), signal.SIGKILL)"),
                             "--no-trace")
    assert report["run"]["signal"] == 9 and report["run"]["exit_status"] == 128 + 9
    assert "checks-missing" in [x["code"] for x in report["measurement"]["reasons"]]
    assert _errors(validator, report) == []


@needs_torch
def test_demo_run(validator, tmp_path):
    r = run_cli("demo", "--items", "16", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (report_path,) = (tmp_path / ".fastenough" / "runs").glob("*/report.json")
    report = json.loads(report_path.read_text())
    codes = {f["code"] for f in report["findings"]}
    assert {"autograd-in-eval", "padding-waste", "full-vocab-logits"} <= codes
    # The profiler window is analysed, or the report says why not (a slow machine).
    reasons = [x["code"] for x in report["measurement"]["reasons"]]
    assert report["run_details"]["traces"] or "no-trace" in reasons, reasons
    assert _errors(validator, report) == []


# ------------------------------------------------------- strict enough to fail

@pytest.fixture(scope="module")
def trace_report() -> dict:
    return _analyze(REPO / "examples" / "traces" / "train_a100_rank3.json.gz")


def _set(report: dict, path: list, value) -> dict:
    out = copy.deepcopy(report)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


_DELETE = object()

MUTATIONS = [
    (["schema"], "fastenough.report/2"),
    (["steps", "count"], "6"),                      # a count as a string
    (["steps", "median_ns"], "fast"),
    (["devices", 0, "busy_ns"], 1.5),               # nanoseconds are integers
    (["findings", 0, "verdict"], "maybe"),
    (["findings", 0, "saving", "upper_bound"], 1),
    (["findings", 0, "evidence", "nested"], {"a": 1}),
    (["findings", 0, "saving"], _DELETE),           # a missing required key
    (["findings", 0, "code"], _DELETE),
    (["launch"], _DELETE),
    (["counters", 0, "severity"], "fatal"),
    (["inputs", 0, "format"], "pickle"),
    (["unknown_key"], 1),                            # the objects are closed
    (["measurement"], {"status": "complete"}),      # a run block without its run
]


@pytest.mark.parametrize("path,value", MUTATIONS,
                         ids=lambda x: "deleted" if x is _DELETE else str(x))
def test_a_mutated_report_fails(validator, trace_report, path, value):
    assert _errors(validator, trace_report) == []
    assert trace_report["findings"], "the example trace has findings to mutate"
    assert _errors(validator, _set(trace_report, path, value)), f"{path} = {value!r} passed"
