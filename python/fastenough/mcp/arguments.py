"""A tool's arguments, checked and made into data before any reaches the CLI.

An agent's arguments are data, never options: a path "--annotate" must name a
file called "--annotate", not turn on the flag that overwrites one. Three rules
make that hold for every verb, whatever argparse would make of a string:

- every path and command goes after `--` on the CLI's command line (args_after);
- a relative path that starts with "-" is also written "./-x" (the same file),
  and a program name may not start with "-" at all, so that even a verb whose
  grammar has no `--` (ab's two quoted commands) cannot read one as an option;
- an option's value is joined to it (`--select=CODES`, `--env-a=K=V`), and every
  value is checked against what the verb accepts (finite numbers in range, codes
  the catalog knows, variable names as a shell spells them).

Sizes are bounded too: a path, an argument, the whole command line and the
environment each have a limit below what the kernel refuses (E2BIG), so an
oversized argument is the caller's mistake (bad-input), not a crash.
"""

from __future__ import annotations

import re

from fastenough.inputs.numbers import Bounds, float_problem, whole_problem
from fastenough.mcp.calls import ToolFailure

MAX_PATHS = 1024
MAX_PATH_CHARS = 4096
# Linux refuses one argument over 128 KiB (MAX_ARG_STRLEN) and a command line plus
# environment over about a quarter of the stack limit; stay well below both.
MAX_ARG_BYTES = 64 * 1024
MAX_ARGV_BYTES = 512 * 1024
MAX_ARGV_ITEMS = 4096

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def bad(message: str) -> ToolFailure:
    return ToolFailure("bad-input", message, 2)


def _text(value: object, what: str, limit: int) -> str:
    if not isinstance(value, str) or not value:
        raise bad(f"{what}: a non-empty string")
    if "\0" in value:
        raise bad(f"{what}: contains a NUL character")
    if len(value.encode("utf-8", "surrogatepass")) > limit:
        raise bad(f"{what}: longer than {limit} bytes")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise bad(f"{what}: not valid Unicode (a lone surrogate)") from None
    return value


def name(value: object, what: str, limit: int = 200) -> str:
    """A short name given as an option's value (`--device=NAME`), as data."""
    return _text(value, what, limit)


def as_path(value: object, what: str) -> str:
    """One path, as data: "./-x" for a relative path that starts with "-"."""
    p = _text(value, what, MAX_PATH_CHARS)
    return "./" + p if p.startswith("-") else p


def paths(value: object, what: str = "paths") -> list[str]:
    """One or more paths (a single string is one path)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise bad(f"{what}: give one or more paths")
    if len(value) > MAX_PATHS:
        raise bad(f"{what}: at most {MAX_PATHS} paths")
    return [as_path(p, what) for p in value]


def command(value: object, what: str = "command") -> list[str]:
    """A program and its arguments, run as given (no shell). The program's name may not
    start with '-' (give its path: ./-x); its arguments are its own business."""
    if isinstance(value, str) or not isinstance(value, list) or not value:
        raise bad(f"{what}: give the program and its arguments as a list of strings, e.g. "
                  '["python", "eval.py", "--cfg", "x"] (no shell runs it)')
    if len(value) > MAX_ARGV_ITEMS:
        raise bad(f"{what}: at most {MAX_ARGV_ITEMS} arguments")
    total = 0
    for i, a in enumerate(value):
        if not isinstance(a, str) or "\0" in a:
            raise bad(f"{what}: every argument must be a string without NUL characters")
        size = len(a.encode("utf-8", "surrogatepass"))
        if size > MAX_ARG_BYTES:
            raise bad(f"{what}: argument {i} is {size} bytes, more than the {MAX_ARG_BYTES} "
                      "a command line takes here; pass large data in a file")
        total += size + 1
    if total > MAX_ARGV_BYTES:
        raise bad(f"{what}: {total} bytes of arguments, more than the {MAX_ARGV_BYTES} a "
                  "command line takes here; pass large data in a file")
    if not value[0]:
        raise bad(f"{what}: the program name is empty")
    if value[0].startswith("-"):
        raise bad(f"{what}: the program name {value[0][:40]!r} starts with '-' and would be "
                  "read as an option; give its path (./name)")
    return list(value)


def env(value: object, what: str = "env") -> dict[str, str]:
    """Environment variables: names as a shell spells them, string values."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad(f"{what}: an object of variable names and string values")
    out: dict[str, str] = {}
    total = 0
    for k, v in value.items():
        if not isinstance(k, str) or not _ENV_NAME.fullmatch(k):
            raise bad(f"{what}: {str(k)[:40]!r} is not a variable name (letters, digits, _)")
        if not isinstance(v, str) or "\0" in v:
            raise bad(f"{what}: the value of {k} must be a string without NUL characters")
        total += len(k) + len(v.encode("utf-8", "surrogatepass")) + 2
        out[k] = v
    if total > MAX_ARGV_BYTES:
        raise bad(f"{what}: {total} bytes of variables, more than {MAX_ARGV_BYTES}")
    return out


def number(value: object, what: str, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False) -> float:
    """A finite number within [low, high] (an end open where asked): the CLI's own
    check (inputs/numbers.py), so that a tool takes what its verb takes."""
    problem = float_problem(value, Bounds(low, high, low_open, high_open))
    if problem:
        raise bad(f"{what}: {problem}")
    return float(value)  # type: ignore[arg-type]


def integer(value: object, what: str, low: int, high: int) -> int:
    """A JSON integer within [low, high] (the CLI's check; a float is refused here, where
    the schema says integer)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(f"{what}: a whole number in {low}..{high}")
    problem = whole_problem(value, Bounds(low, high))
    if problem:
        raise bad(f"{what}: {problem}")
    return int(value)


def codes(value: object, what: str, known: set[str] | dict) -> list[str]:
    """Finding codes the catalog knows; an unknown one is refused with the nearest."""
    import difflib

    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise bad(f"{what}: a list of codes")
    out = []
    for c in value:
        if not isinstance(c, str) or not _CODE.fullmatch(c) or c not in known:
            near = difflib.get_close_matches(str(c), list(known), n=3, cutoff=0.5) \
                if isinstance(c, str) else []
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise bad(f"{what}: unknown code {str(c)[:60]!r}{hint}")
        out.append(c)
    return out


def code(value: object, what: str) -> str:
    """A finding code as the catalog spells them (lowercase words and dashes)."""
    if not isinstance(value, str) or len(value) > 60 or not _CODE.fullmatch(value):
        raise bad(f"{what}: a finding code such as sync-in-loop")
    return value


def args_after(options: list[str], data: list[str]) -> list[str]:
    """The CLI's arguments: options first, then `--`, then the data."""
    return [*options, "--", *data]
