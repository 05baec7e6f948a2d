"""`fastenough lint PATH...`: performance anti-patterns found in the source, before running.

The parser and the rules are C++ (cpp/fastenough/lint/rules/, one file per
family); this module parses the options, runs them and prints one of the
formats. Exit codes: 0 no findings (or --exit-zero), 1 findings, 2 usage error
(unknown code, missing path).
Files that cannot be read, are not UTF-8 or do not parse are reported and
skipped; they do not change the exit code.
"""

from __future__ import annotations

import argparse
import sys

from fastenough.errors import EXIT_FINDINGS_OR_COUNTERS, EXIT_OK, UsageError
from fastenough.inputs.numbers import MAX_THREADS, whole_number

HELP = "find performance anti-patterns in Python source, without running it"

EPILOG = """\
examples:
  fastenough lint src/                   every rule, every .py file under src/
  fastenough lint eval.py --select sync-in-loop,autograd-in-eval
  fastenough lint . --ignore manual-attention   all rules but one
  fastenough lint . --format sarif > lint.sarif
                                         for code-scanning UIs (SARIF 2.1.0)
  fastenough lint . --format json --exit-zero
                                         machine-readable, never fails the job
  fastenough lint --explain sync-in-loop why a finding matters, how to fix it
  fastenough lint --explain all          every code with its one-line summary

Silence one finding with a comment on its line or alone on the line above:
    x = loss.item()  # fastenough: ignore[sync-in-loop]
A bare `# fastenough: ignore` silences every code on that line.

The user's code is parsed, never imported or run. Codes shared with `fastenough
run` name the same waste measured at runtime.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lint", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="Python files or directories (directories are searched for .py files, "
                        "skipping .git, virtual environments and build output)")
    p.add_argument("--select", metavar="CODES", default=None,
                   help="comma-separated codes to report (default: all)")
    p.add_argument("--ignore", metavar="CODES", default=None,
                   help="comma-separated codes not to report (default: none)")
    p.add_argument("--format", choices=("human", "json", "sarif"), default="human",
                   help="output format (default: human)")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when there are findings (default: exit 1 on findings)")
    p.add_argument("--explain", metavar="CODE", default=None,
                   help="print what CODE means and how to fix it ('all' lists every code)")
    p.add_argument("--jobs", type=whole_number(0, MAX_THREADS), default=0, metavar="N",
                   help="threads that parse and check files (default: one per CPU core)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr (it shows only on a terminal, for trees "
                        "that take more than a moment)")
    p.set_defaults(func=run)


def _codes(text: str | None, flag: str) -> set[str]:
    from fastenough.lint.rules import CODES

    if text is None:
        return set()
    codes = {c.strip() for c in text.split(",") if c.strip()}
    unknown = sorted(codes - set(CODES))
    if unknown:
        raise UsageError(f"{flag}: unknown code {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(CODES))})")
    return codes


# A bar only where it helps: a terminal, and a tree that takes more than a moment
# (the core lints a few thousand files a second per core).
_PROGRESS_FROM_FILES = 2000


def _lint_with_progress(args: argparse.Namespace, codes: set[str]):
    from fastenough.lint.walker import discover, lint_files

    files = discover(args.paths)
    if args.no_progress or not sys.stderr.isatty() or len(files) < _PROGRESS_FROM_FILES:
        return lint_files(files, codes, args.jobs)
    from fastenough.render.progress import count_progress

    with count_progress("linting", "files") as update:
        return lint_files(files, codes, args.jobs, update)


def run(args: argparse.Namespace) -> int:
    from fastenough.lint.formats import FORMATS
    from fastenough.lint.rules import CODES

    if args.explain is not None:
        from fastenough.lint.explain import explain_text

        sys.stdout.write(explain_text(args.explain))
        return EXIT_OK
    if not args.paths:
        raise UsageError("lint: give at least one PATH (or --explain CODE)")
    selected = _codes(args.select, "--select") or set(CODES)
    selected -= _codes(args.ignore, "--ignore")
    result = _lint_with_progress(args, selected)
    if args.format == "human":
        text = FORMATS["human"](result, color=sys.stdout.isatty())
    else:
        text = FORMATS[args.format](result)
    sys.stdout.write(text)
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS_OR_COUNTERS
    return EXIT_OK
