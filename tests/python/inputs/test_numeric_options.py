"""Every number a verb takes is finite and within its documented range
(issue 34, item 15): one argparse type per kind (inputs/numbers.py), used by
every numeric option of every verb, so that nan, inf, 1e999 and 10**30 are
exit 2 with "argument --X: ..." instead of passing every `x < 0` test and
coming out as NaN/Infinity (invalid JSON) or std::bad_cast in the core. The
documents the CLI writes are JSON without NaN/Infinity."""

from __future__ import annotations

import argparse
import json

import pytest

from fastenough.cli.main import build_parser
from fastenough.outputs import json_output

NOT_FINITE = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999", "-1e999"]
NOT_WHOLE = ["nan", "inf", "2.5", "1e3", "ten", "1" + "0" * 30, "9" * 5000]


def _numeric_options() -> list[tuple[str, str, str]]:
    """(verb, option, type name) of every option with a value that is a number."""
    out = []
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for verb, p in sub.choices.items():
        for action in p._actions:
            kind = getattr(action.type, "__name__", "")
            if kind in ("int", "float", "finite_float", "whole_number"):
                out.append((verb, action.option_strings[0], kind))
    return out


OPTIONS = _numeric_options()


def test_no_option_takes_a_bare_int_or_float():
    # float('nan') and int('10' * 30) are what a bare type lets through.
    bare = [f"{verb} {opt}" for verb, opt, kind in OPTIONS if kind in ("int", "float")]
    assert not bare, f"use inputs/numbers.py finite_float / whole_number for: {bare}"
    assert len(OPTIONS) >= 25  # the census below covers them all


@pytest.mark.parametrize("verb, option, kind", OPTIONS, ids=[f"{v}{o}" for v, o, _ in OPTIONS])
def test_every_numeric_option_refuses_what_is_no_finite_number(capsys, verb, option, kind):
    parser = build_parser()
    for value in NOT_FINITE if kind == "finite_float" else NOT_WHOLE:
        with pytest.raises(SystemExit) as e:
            parser.parse_args([verb, f"{option}={value}"])
        err = capsys.readouterr().err
        assert e.value.code == 2, (value, err)
        assert f"argument {option}" in err and "Traceback" not in err, (value, err)
        assert ("not a finite number" in err or "not a whole number" in err
                or "out of range" in err), (value, err)


@pytest.mark.parametrize("argv, message", [
    (["compare", "a", "b", "--atol", "nan"], "--atol nan: X = nan: not a finite number"),
    (["compare", "a", "b", "--rtol", "bf16=inf"], "--rtol bf16=inf: X = inf: not a finite"),
    (["compare", "a", "b", "--atol", "fp32=1e999"], "X = 1e999: not a finite number"),
    (["compare", "a", "b", "--ulp", "1" + "0" * 30], "out of range"),
    (["compare", "a", "b", "--ulp", "2.5"], "--ulp 2.5: N = 2.5: not a whole number"),
    (["compare", "a", "b", "--atol", "-1"], "X = -1: out of range"),
])
def test_numbers_inside_an_option_are_checked_alike(capsys, tmp_path, argv, message):
    from fastenough.cli.main import main

    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err, err


@pytest.mark.parametrize("argv", [
    ["run", "--hz", "1000", "--trace-steps", "1000000", "--warmup-steps", "0",
     "--in-job-timeout", "86400", "--", "true"],
    ["diff", "a", "b", "--min-change", "0", "--min-change-us", "0", "--max-regression", "0",
     "--confidence", "0.999", "--top", "1"],
    ["ab", "--max-rounds", "2", "--budget", "0.5", "--confidence", "0.5", "--atol", "0",
     "--rtol", "0", "--require-speedup", "1.05", "a", "b"],
    ["analyze", "--threads", "0", "--window", "1", "t.json"],
    ["lint", "--jobs", "4096", "."],
    ["history", "--limit", "1000000000"],
])
def test_the_bounds_themselves_are_accepted(argv):
    build_parser().parse_args(argv)


def test_a_document_never_holds_nan_or_infinity(capsys):
    doc = {"a": 1.5, "b": [float("nan"), {"c": float("inf")}], "d": "nan"}
    text = json_output.dumps(doc)

    def refuse(name):
        raise ValueError(name)

    assert json.loads(text, parse_constant=refuse) == {"a": 1.5, "b": [None, {"c": None}],
                                                       "d": "nan"}
    err = capsys.readouterr().err
    assert "a non-finite number at $.b[0] and 1 more was written as null" in err
    # A finite document is written as json.dumps writes it, and says nothing.
    assert json_output.dumps({"x": [1, 2.5]}) == json.dumps({"x": [1, 2.5]}, indent=2)
    assert capsys.readouterr().err == ""
