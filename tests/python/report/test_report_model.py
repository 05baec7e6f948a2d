"""The typed report model (python/fastenough/report): model.py is what
scripts/gen_report_model.py makes of the schema today; load() reads every report
the core writes and gives back the same JSON; it refuses what the schema refuses,
naming the JSON path, as a BadInputError (exit 2)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from test_report_schema import _DELETE, GOLDEN, MUTATIONS, RANKS, TRACES, _set

from fastenough.errors import EXIT_USAGE, BadInputError, MalformedReportError
from fastenough.report import Report, load
from fastenough.report import model as report_model
from fastenough.schema import report_schema


def _generator():
    spec = importlib.util.spec_from_file_location("gen_report_model",
                                                  REPO / "scripts" / "gen_report_model.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _analyze(*paths: Path) -> dict:
    r = run_cli("analyze", "--json", *paths)
    assert r.returncode in (0, 1, 5), r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def trace_report() -> dict:
    return _analyze(REPO / "examples" / "traces" / "train_a100_rank3.json.gz")


def test_the_checked_in_model_is_generated_from_the_schema_of_today():
    text = _generator().generate(report_schema())
    current = Path(report_model.__file__).read_text(encoding="utf-8")
    assert current == text, "python/fastenough/report/model.py is stale: run " \
                            "scripts/gen_report_model.py"


@pytest.mark.parametrize("paths", [[p] for p in [*TRACES, *GOLDEN]] + [RANKS],
                         ids=lambda ps: "+".join(p.name for p in ps))
def test_load_reads_every_report_and_gives_back_the_same_json(paths):
    doc = _analyze(*paths)
    report = load(json.dumps(doc))
    assert isinstance(report, Report)
    assert json.dumps(report.to_json()) == json.dumps(doc)  # same keys, same order, same values
    assert load(doc) == report


def test_the_model_is_typed_and_an_absent_optional_key_is_none(trace_report):
    r = load(trace_report)
    assert r.schema == "fastenough.report/1"
    assert r.run is None and r.measurement is None  # a trace's report has no run block
    assert r.steps.steady_median_ns == trace_report["steps"]["steady_median_ns"]
    f = r.findings[0]
    assert f.code == trace_report["findings"][0]["code"]
    assert f.saving.upper_bound == trace_report["findings"][0]["saving"]["upper_bound"]
    assert isinstance(r.findings, tuple) and isinstance(f.evidence, dict)
    with pytest.raises(AttributeError):
        r.schema = "x"  # frozen


def test_the_classes_behave_as_frozen_slotted_dataclasses(trace_report):
    """model.py writes out what @dataclass(frozen=True, slots=True) made (the decorator
    compiled six methods per class at import: 45 ms of CPU at every start of every
    command, for 77 classes): frozen, no __dict__, equal by fields but not key_order,
    shown by fields, replace(), pickle."""
    import dataclasses
    import pickle

    r = load(trace_report)
    f = r.findings[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.code = "x"
    with pytest.raises(AttributeError):
        del f.code
    assert not hasattr(f, "__dict__")
    assert load(trace_report) == r and r != r.replace(tool_version="other")
    where = f.where[0]
    moved = where.replace(key_order=("file",))
    assert moved == where and moved.key_order == ("file",) and hash(moved) == hash(where)
    assert where.replace(file="x.py").file == "x.py" and where.file != "x.py"
    with pytest.raises(TypeError):
        where.replace(nope=1)
    assert repr(where).startswith("Location(file=") and "key_order" not in repr(where)
    assert pickle.loads(pickle.dumps(r)) == r
    assert "\n@dataclass" not in Path(report_model.__file__).read_text(encoding="utf-8")


@pytest.mark.parametrize("path,value", MUTATIONS,
                         ids=lambda x: "deleted" if x is _DELETE else str(x))
def test_load_refuses_what_the_schema_refuses(trace_report, path, value):
    with pytest.raises(MalformedReportError) as e:
        load(_set(trace_report, path, value))
    assert isinstance(e.value, BadInputError) and e.value.exit_code == EXIT_USAGE
    assert str(e.value).startswith("not a valid fastenough.report/1 document: report")


def test_the_error_names_the_json_path_of_the_value(trace_report):
    bad = _set(trace_report, ["findings", 0, "saving", "share_of_step"], "a lot")
    with pytest.raises(MalformedReportError) as e:
        load(bad)
    assert e.value.path == "report.findings[0].saving.share_of_step"
    assert "expected a number or null, got 'a lot'" in str(e.value)
    with pytest.raises(MalformedReportError) as e:
        load(_set(trace_report, ["findings", 0, "code"], _DELETE))
    assert e.value.path == "report.findings[0]" and "'code' is missing" in str(e.value)


def test_a_report_of_an_earlier_release_lacks_the_keys_added_since(trace_report):
    # shapes[].input_concrete came later in fastenough.report/1: a stored
    # baseline without it still loads (for diff and the gate), reads None,
    # and writes back as it was; a missing key that cannot be null is refused.
    assert trace_report["shapes"], "the trace report has a shape census"
    older = _set(trace_report, ["shapes", 0, "input_concrete"], _DELETE)
    r = load(older)
    assert r.shapes[0].input_concrete is None
    assert r.to_json() == older
    with pytest.raises(MalformedReportError) as e:
        load(_set(trace_report, ["shapes", 0, "count"], _DELETE))
    assert e.value.path == "report.shapes[0]" and "'count' is missing" in str(e.value)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '"report"', "null"])
def test_load_of_text_that_is_no_report_is_a_bad_input(text):
    with pytest.raises(BadInputError):
        load(text)
