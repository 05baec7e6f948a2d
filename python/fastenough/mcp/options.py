"""The MCP tools' options, read from the CLI's own declarations (its argparse parsers).

A tool argument that is one of its verb's options (FromCli) takes the option's help,
type, bounds, choices and default from the verb's parser, so that the two never drift:
an option's text, range or default changes in one place. The rest of each verb's
options are named here too: covered by an argument in the shape a JSON caller gives
(Own: a list for a comma list, an object for repeated KEY=VALUE, one choice for a pair
of flags), or left out of the tool with the reason (Excluded). tests/python/
test_mcp_server.py checks that every option of every verb is one of the three, so that
an option added to a verb appears in its tool or is refused here with a reason.

The parsers come from the CLI's edge (cli/mcp.py hands them to server.build_server):
this room sits below the commands and imports none of them. Nothing here imports
`mcp` or pydantic: server.py makes the schema of what `params` returns.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

_CLI = object()  # the CLI's default
REQUIRED = object()  # a tool argument without a default


@dataclass(frozen=True)
class FromCli:
    """A tool argument that is the verb's option `dest`. invert: the argument's true is
    the option's absence (trace = not --no-trace). default / high: the tool's own, where
    an agent's call differs from a person's command line, with `why`."""

    dest: str
    invert: bool = False
    default: object = _CLI
    high: float | None = None
    required: bool = False
    why: str = ""


@dataclass(frozen=True)
class Own:
    """A tool argument declared in server.py, in a JSON caller's shape, that covers
    these options of the verb."""

    covers: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Excluded:
    why: str


_SERVER_OUTPUT = Excluded("the server chooses how the verb prints (its JSON document, read "
                          "back into the answer)")
_SERVER_DIR = Excluded("the server chooses where the verb writes (its scratch directory or "
                       "cwd/.fastenough/)")
_NO_TERMINAL = Excluded("progress goes to MCP progress notifications, not a terminal")

# Per tool: its verb, then each of the verb's options (argparse dest) or positionals as
# FromCli (keyed by the tool argument's name), Own (keyed by the argument) or Excluded
# (keyed by the dest).
TOOLS: dict[str, tuple[str, dict[str, FromCli | Own | Excluded]]] = {
    "run": ("run", {
        "command": Own(("command",), "the program and its arguments as a list, after --"),
        "trace": FromCli("no_trace", invert=True),
        "trace_steps": FromCli("trace_steps", high=1000, why="a longer window keeps more of "
                               "torch's records in memory than an agent's run needs"),
        "warmup_steps": FromCli("warmup_steps", high=1000, why="as trace_steps"),
        "probe": FromCli("probe"),
        "timing_only": FromCli("timing_only"),
        "require_complete": FromCli("require_complete", default=True,
                                    why="an agent must not take a blind run for a clean one"),
        "run_dir": _SERVER_DIR, "json": _SERVER_OUTPUT, "md": _SERVER_OUTPUT,
        "quiet": _SERVER_OUTPUT,
        "hz": Excluded("the sampler's default rate serves every run an agent makes"),
        "trace_gloo": Excluded("the default; kept on the CLI for scripts that name it"),
        "no_trace_gloo": Excluded("trace=false leaves out every window, gloo's included"),
        "trace_no_shapes": Excluded("replay and the small-GEMM findings need the shapes"),
        "trace_memory": Excluded("the window's memory bound keeps its default"),
        "analyze_in_job": Excluded("multi-rank launches are a person's command line"),
        "in_job_timeout": Excluded("with analyze_in_job only"),
        "no_nvml": Excluded("device sampling stays on: its figures are the report's"),
        "no_npu_smi": Excluded("device sampling stays on: its figures are the report's"),
        "no_history": Excluded("an agent's runs are kept in runs.db like a person's"),
    }),
    "ab": ("ab", {
        "command_a": Own(("commands",), "two commands as lists, each after --"),
        "env_a": Own(("env_a",), "an object of variables instead of repeated K=V"),
        "env_b": Own(("env_b",), "an object of variables instead of repeated K=V"),
        "rounds": FromCli("rounds", default=2, high=20,
                          why="a fixed design of 8 runs fits one call's time limit"),
        "trace": Own(("trace", "no_trace"), "the pair of flags as one choice"),
        "atol": FromCli("atol"), "rtol": FromCli("rtol"),
        "require_speedup": FromCli("require_speedup"), "confidence": FromCli("confidence"),
        "max_rounds": Excluded("the tool runs the fixed design (rounds)"),
        "budget": Excluded("the call's time limit is timeout_s"),
        "dir": _SERVER_DIR, "json": _SERVER_OUTPUT,
        "no_history": Excluded("an agent's runs are kept in runs.db like a person's"),
    }),
    "analyze": ("analyze", {
        "paths": Own(("paths",), "a list of paths, after --"),
        "window": FromCli("window"),
        "device": FromCli("device"),
        "peaks": FromCli("peaks"),  # an input path, read only
        "json": _SERVER_OUTPUT, "md": _SERVER_OUTPUT, "no_progress": _NO_TERMINAL,
        "threads": Excluded("the core chooses its threads"),
        "rank_summaries": Excluded("in-job summaries are read by `report` of a run directory"),
        "dask": Excluded("a cluster is a person's setup"),
        "annotate": Excluded("it writes beside the user's traces; the tools write only "
                             "where their contract says"),
    }),
    "report": ("report", {
        "path": Own(("paths",), "one path, after --"),
        "detail": Own(("format",), "compact or full answers instead of output formats"),
        "output": _SERVER_DIR, "no_progress": _NO_TERMINAL,
        "reanalyze": Excluded("`analyze` reads the traces again"),
        "window": Excluded("`analyze` with window reads one window"),
        "threads": Excluded("the core chooses its threads"),
    }),
    "compare": ("compare", {
        "a": Own(("a",), "a path, after --"), "b": Own(("b",), "a path, after --"),
        "atol": Own(("atol",), "one tolerance for every dtype (the CLI's DTYPE=X form is "
                    "a person's)"),
        "rtol": Own(("rtol",), "likewise"),
        "exact": FromCli("exact"), "nan_equal": FromCli("nan_equal"),
        "top": Own(("top",), "every tool's top"),
        "ulp": Excluded("tolerances in units in the last place are a person's call"),
        "json": _SERVER_OUTPUT,
    }),
    "diff": ("diff", {
        "a": Own(("a",), "a path, after --"), "b": Own(("b",), "a path, after --"),
        "min_change": FromCli("min_change"),
        "device": FromCli("device"),
        "peaks": FromCli("peaks"),  # an input path, read only
        "top": Own(("top",), "every tool's top"),
        "min_change_us": Excluded("the relative change is the agent's question"),
        "max_regression": Excluded("a gate for CI: `ab` verifies a change"),
        "confidence": Excluded("with max_regression only"),
        "json": _SERVER_OUTPUT, "md": _SERVER_OUTPUT,
    }),
    "decide": ("decide", {
        "run_dir": Own(("run_dir",), "a path, after --"),
        "runs": FromCli("runs", required=True, why="required: nobody is asked on a terminal"),
        "fixes": Own(("fix",), "a list of objects instead of repeated CODE=DEV,VERIFY,MAINT"),
        "wait_value": FromCli("wait_value"),
        "plan": Excluded("the fixes argument gives the costs a plan file would"),
        "reopen": Excluded("reopening a frozen run is a person's decision"),
        "json": _SERVER_OUTPUT,
    }),
    "lint": ("lint", {
        "paths": Own(("paths",), "a list of paths, after --"),
        "select": Own(("select",), "a list of codes instead of a comma list"),
        "ignore": Own(("ignore",), "a list of codes instead of a comma list"),
        "format": _SERVER_OUTPUT, "no_progress": _NO_TERMINAL,
        "exit_zero": Excluded("the tool's answer is the same either way"),
        "explain": Excluded("the explain tool"),
        "jobs": Excluded("lint chooses its processes"),
    }),
    "replay": ("replay", {
        "path": Own(("path",), "a path, after --"),
        "op": FromCli("op"), "top": Own(("top",), "every tool's top"),
        "out": _SERVER_DIR,
        "device": Excluded("the scripts run on the device the op ran on"),
        "json": _SERVER_OUTPUT,
    }),
    "explain": ("explain", {
        "code": Own(("code",), "a finding code, checked before it reaches the CLI"),
        "md": _SERVER_OUTPUT,
    }),
}


@dataclass
class Param:
    """A tool argument as a JSON Schema describes it (server.py makes it a pydantic Field)."""

    name: str
    type: type
    default: object
    description: str
    choices: tuple | None = None
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    optional: bool = False  # None is allowed (the CLI's "not given")


def verb_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The verb's options and positionals by dest (help left out)."""
    return {a.dest: a for a in parser._actions
            if not isinstance(a, argparse._HelpAction) and a.dest != argparse.SUPPRESS}


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    try:  # as argparse prints it: %(default)s filled in, %% a percent sign
        return text % {**vars(action), "prog": ""}
    except (KeyError, TypeError, ValueError):
        return text


def _param(name: str, spec: FromCli, action: argparse.Action) -> Param:
    flag = max(action.option_strings, key=len)
    text = _help(action)
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if spec.invert:
            return Param(name, bool, True, f"default true; false is `{flag}`: {text}")
        default = False if spec.default is _CLI else spec.default
        return Param(name, bool, default, f"`{flag}`: {text}"
                     + (f" (default {str(default).lower()} here: {spec.why})"
                        if default is not False else ""))
    kind = {"whole_number": int, "finite_float": float}.get(
        getattr(action.type, "__name__", ""), str)
    default = action.default if spec.default is _CLI else spec.default
    p = Param(name, kind, REQUIRED if spec.required else default, f"`{flag}`: {text}",
              choices=tuple(action.choices) if action.choices else None,
              optional=default is None and not spec.required)
    bounds = getattr(action.type, "bounds", None)
    if bounds is not None:
        if bounds.lo is not None:
            p.gt, p.ge = (bounds.lo, None) if bounds.lo_open else (None, bounds.lo)
        if bounds.hi is not None:
            p.lt, p.le = (bounds.hi, None) if bounds.hi_open else (None, bounds.hi)
    if spec.high is not None:
        p.le, p.lt = spec.high, None
    if spec.why and (spec.high is not None or spec.default is not _CLI or spec.required):
        p.description += f" (here: {spec.why})"
    return p


def params(tool: str, parsers: dict[str, argparse.ArgumentParser]) -> list[Param]:
    """The tool's arguments that are its verb's options, from the verb's parser."""
    verb, spec = TOOLS[tool]
    actions = verb_actions(parsers[verb])
    return [_param(name, s, actions[s.dest]) for name, s in spec.items()
            if isinstance(s, FromCli)]


def uncovered(tool: str, parsers: dict[str, argparse.ArgumentParser]) -> list[str]:
    """The verb's options that the tool neither takes nor leaves out with a reason."""
    verb, spec = TOOLS[tool]
    covered = {s.dest for s in spec.values() if isinstance(s, FromCli)}
    covered |= {d for s in spec.values() if isinstance(s, Own) for d in s.covers}
    covered |= {k for k, s in spec.items() if isinstance(s, Excluded)}
    return sorted(set(verb_actions(parsers[verb])) - covered)


def verb_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The verbs' parsers of the CLI's top parser."""
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    raise ValueError("the CLI's parser has no verbs")
