"""Every number a user gives a verb, checked in one place.

A number reaches fastenough as an option (`--wait-value 2`), inside an option
(`--fix CODE=2,1,0.5`, `--atol bf16=1e-2`) or in a file the user wrote
(`runs = 50` in a decide plan). Each is checked here before any work starts:

- finite: `nan`, `inf` and what overflows to them (`1e999`) are refused, as
  they would pass every `x < 0` test and come out as NaN/Infinity, which is no
  JSON (issue 34, item 15);
- a whole number where a count is meant (`runs = 2.5` is refused, not
  truncated; TOML's `true` is no number);
- within the range the option documents, which also keeps integers inside
  what the C++ core takes (`--runs 10**30` gave std::bad_cast in the binding).

The argparse types raise ArgumentTypeError (argparse prints
"argument --X: ..." and exits 2); `check_float`/`check_whole` raise the
error class the caller names (BadInputError for a file), with the text of
what is wrong, so every verb words it the same.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass

from fastenough.errors import FastenoughError, UsageError
from fastenough.visible import visible

# The largest whole number any count option takes: far above any real use and
# well inside the core's int64 (and SQLite's INTEGER).
MAX_COUNT = 10**9
# Threads or processes an option may ask for (--threads, --jobs).
MAX_THREADS = 4096


@dataclass(frozen=True)
class Bounds:
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False  # lo itself is outside
    hi_open: bool = False

    def contains(self, x: float) -> bool:
        if self.lo is not None and (x <= self.lo if self.lo_open else x < self.lo):
            return False
        return not (self.hi is not None and (x >= self.hi if self.hi_open else x > self.hi))

    def describe(self) -> str:
        lo = None if self.lo is None else _fmt(self.lo)
        hi = None if self.hi is None else _fmt(self.hi)
        if lo is not None and hi is not None:
            if not self.lo_open and not self.hi_open:
                return f"from {lo} to {hi}"
            low = f"above {lo}" if self.lo_open else f"at least {lo}"
            high = f"below {hi}" if self.hi_open else f"at most {hi}"
            return f"{low} and {high}"
        if lo is not None:
            return f"above {lo}" if self.lo_open else f"{lo} or more"
        if hi is not None:
            return f"below {hi}" if self.hi_open else f"{hi} or less"
        return "of any size"


def _fmt(x: float) -> str:
    if float(x).is_integer():
        n = int(x)
        power = len(str(abs(n))) - 1
        if abs(n) >= 10**6 and abs(n) == 10**power:
            return f"{'-' if n < 0 else ''}10**{power}"
        return str(n)
    return f"{x:g}"


def float_problem(value: object, bounds: Bounds) -> str | None:
    """What is wrong with `value` as a finite number within `bounds`; None when nothing."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "not a number"
    try:
        x = float(value)
    except OverflowError:  # an int beyond the doubles
        return "not a finite number"
    if not math.isfinite(x):
        return "not a finite number"
    if not bounds.contains(x):
        return f"out of range: expected a number {bounds.describe()}"
    return None


def whole_problem(value: object, bounds: Bounds) -> str | None:
    """What is wrong with `value` as a whole number within `bounds`; None when nothing."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)  # `runs = 50.0`: a whole number written as a float
        else:
            return "not a whole number"
    if not bounds.contains(value):
        return f"out of range: expected a whole number {bounds.describe()}"
    return None


def _parse_float(text: str) -> float | None:
    try:
        return float(text)
    except (ValueError, OverflowError):
        return None


def _parse_whole(text: str) -> int | None:
    digits = text.strip().lstrip("+-")
    if digits.isdigit() and len(digits) > 30:  # past every bound; int() stops at 4300 digits
        return -(10**30) if text.strip().startswith("-") else 10**30
    try:
        return int(text)
    except ValueError:
        return None


def check_float(value: object, what: str, lo: float | None = None, hi: float | None = None,
                *, lo_open: bool = False, hi_open: bool = False,
                error: type[FastenoughError] = UsageError) -> float:
    """`value` as a float when finite and within the bounds, else `error`
    ("WHAT = VALUE: not a finite number")."""
    given = value
    if isinstance(value, str):
        parsed = _parse_float(value)
        value = value if parsed is None else parsed
    problem = float_problem(value, Bounds(lo, hi, lo_open, hi_open))
    if problem:
        raise error(f"{what} = {_shown(given, quote=False)}: {problem}")
    return float(value)  # type: ignore[arg-type]


def check_whole(value: object, what: str, lo: int | None = 0, hi: int | None = MAX_COUNT,
                *, error: type[FastenoughError] = UsageError) -> int:
    """`value` as an int when whole and within the bounds, else `error`."""
    given = value
    if isinstance(value, str):
        parsed = _parse_whole(value)
        value = value if parsed is None else parsed
    problem = whole_problem(value, Bounds(lo, hi))
    if problem:
        raise error(f"{what} = {_shown(given, quote=False)}: {problem}")
    return int(value)  # type: ignore[arg-type]


def _shown(value: object, quote: bool = True) -> str:
    """`value` as the user wrote it, cut short: a 5000-digit number is named, not printed."""
    text = repr(value) if isinstance(value, str) and quote else str(value)
    digits = text.strip("'+-")
    if digits.isdigit() and len(digits) > 24:
        sign = "-" if text.lstrip("'").startswith("-") else ""
        text = f"{sign}{digits[:8]}... ({len(digits)} digits)"
    return visible(text[:80] + ("..." if len(text) > 80 else ""))


def finite_float(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
                 hi_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite float within the bounds."""
    bounds = Bounds(lo, hi, lo_open, hi_open)

    def parse(text: str) -> float:
        x = _parse_float(text)
        problem = float_problem(text if x is None else x, bounds)
        if problem:
            raise argparse.ArgumentTypeError(f"{_shown(text)}: {problem}")
        return x  # type: ignore[return-value]

    parse.__name__ = "finite_float"
    parse.bounds = bounds  # type: ignore[attr-defined]  # read by the MCP tools' schemas
    return parse


def whole_number(lo: int | None = 0, hi: int | None = MAX_COUNT) -> Callable[[str], int]:
    """An argparse type: a whole number within the bounds (default 0 to MAX_COUNT)."""
    bounds = Bounds(lo, hi)

    def parse(text: str) -> int:
        n = _parse_whole(text)
        problem = whole_problem(text if n is None else n, bounds)
        if problem:
            raise argparse.ArgumentTypeError(f"{_shown(text)}: {problem}")
        return n  # type: ignore[return-value]

    parse.__name__ = "whole_number"
    parse.bounds = bounds  # type: ignore[attr-defined]  # read by the MCP tools' schemas
    return parse
