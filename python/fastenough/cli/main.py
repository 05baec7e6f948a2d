"""`fastenough` entry point: parses the subcommand and maps errors to exit codes."""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys

from fastenough import __version__
from fastenough.die_with_parent import watch_parent
from fastenough.errors import EXIT_INTERNAL, EXIT_USAGE, FastenoughError
from fastenough.visible import visible

# Subcommand modules under fastenough.cli, in the order --help lists them.
SUBCOMMANDS = ["run", "analyze", "merge", "compare", "ab", "diff", "history", "demo", "decide",
               "report", "explain", "lint", "replay", "mcp"]

DESCRIPTION = """\
fastenough measures where a PyTorch run's time goes, finds the waste that can
be removed, and says how much each fix can save at most.

  fastenough run -- python eval.py     measure a run, no code change: phases,
                                       device use, memory, findings
  fastenough analyze trace.json.gz     diagnose a profiler trace you have
  fastenough merge sums/               one job's report from per-rank summaries
                                       (analyze --rank-summaries sums/)
  fastenough demo [--fixed]            a small wasteful evaluation, measured
  fastenough compare RUN_A RUN_B       do two runs' recorded outputs agree,
                                       item by item?
  fastenough history                   the runs measured in this directory
  fastenough decide RUN_DIR --runs 50  is a fix worth its hours? (else: freeze)
  fastenough report RUN_DIR -o r.html  render a run or trace again (HTML,
                                       Markdown)
  fastenough explain sync-in-loop      what a finding means and what to do
  fastenough ab "python a.py" "python b.py"
                                       is B faster, with the same outputs?
  fastenough lint src/                 anti-patterns visible in the source,
                                       before running
  fastenough diff RUN_A RUN_B          what changed: phases, throughput,
                                       findings, ops, kernels
  fastenough replay trace.json.gz      a runnable script per hot op: its
                                       inputs rebuilt, a kernel to try, timed
  fastenough mcp                       the verbs for coding agents, over MCP
                                       (stdio)

Run `fastenough COMMAND --help` for the options and examples of each command.
"""


def _did_you_mean(word: str, known) -> str:
    """"; did you mean 'analyze'?" for a near miss of one of `known`, else ""."""
    near = difflib.get_close_matches(word, [str(k) for k in known], n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""


def _option_hint(extras: list[str], parser: argparse.ArgumentParser) -> str:
    """'; did you mean --probe?' for the unknown options of `extras` (`--probes`)."""
    known = [o for o in parser._option_string_actions if o.startswith("--")]
    pairs = []
    for arg in extras:
        if arg.startswith("--"):
            near = difflib.get_close_matches(arg.split("=", 1)[0], known, n=1, cutoff=0.6)
            if near:
                pairs.append((near[0], arg))
    if not pairs:
        return ""
    if len(pairs) == 1 and len(extras) == 1:
        return f"; did you mean {pairs[0][0]}?"
    return "; did you mean " + ", ".join(f"{n} for {a}" for n, a in pairs) + "?"


class _Parser(argparse.ArgumentParser):
    # argparse exits with 2 on usage errors already; keep its message short.
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"fastenough: error: {visible(message, keep_newlines=True)}\n")
        raise SystemExit(EXIT_USAGE)

    def _check_value(self, action, value):  # noqa: ANN001 - argparse's own signature
        # `fastenough analyse`: argparse lists the choices; say which one was meant.
        if action.choices is not None and value not in action.choices:
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{_did_you_mean(value, action.choices)} "
                f"(choose from {', '.join(map(repr, action.choices))})")

    def parse_args(self, args=None, namespace=None):  # noqa: ANN001, ANN201
        # An unknown option belongs to a subcommand's parser (`run --probes`): its
        # usage and a near option name, rather than the top level's usage alone.
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            sub = self._subcommand_parser(getattr(parsed, "_verb", None)) or self
            sub.error(f"unrecognized arguments: {' '.join(extras)}{_option_hint(extras, sub)}")
        return parsed

    def _subcommand_parser(self, name: str | None) -> argparse.ArgumentParser | None:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and isinstance(name, str) \
                    and name in action.choices:
                return action.choices[name]
        return None


def version_text() -> str:
    """`fastenough --version`: first line `fastenough X.Y.Z`, then the build."""
    lines = [f"fastenough {__version__}"]
    try:
        from fastenough import _core

        info = _core.build_info()
        lines += [f"  git revision: {info['git_revision']}",
                  f"  json: {info['json']}",
                  f"  gzip: {info['gzip']}",
                  f"  compiler: {info['compiler']}"]
    except (ImportError, AttributeError) as e:  # no core, or an older build of it
        lines.append(f"  C++ core: not importable ({e})")
    lines.append(f"  python: {sys.version.split()[0]}")
    return "\n".join(lines) + "\n"


class _VersionAction(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(version_text())
        raise SystemExit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fastenough",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction,
                        help="print the version, git revision and compiled-in libraries")
    # dest "_verb": `run` has a positional of its own named "command".
    sub = parser.add_subparsers(dest="_verb", metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"fastenough.cli.{name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Started by `fastenough mcp` or `ab`: one SIGTERM when the starter is gone.
    watch_parent()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except FastenoughError as e:
        # Messages quote paths and bytes of damaged files: escapes shown, never sent.
        sys.stderr.write(f"fastenough: {visible(e, keep_newlines=True)}\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("fastenough: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - last line of defence: no tracebacks for users
        import traceback

        sys.stderr.write(
            f"fastenough: internal error: {type(e).__name__}: {e}\n"
            "This is a bug in fastenough; the details follow.\n"
        )
        traceback.print_exc(file=sys.stderr)
        return EXIT_INTERNAL
