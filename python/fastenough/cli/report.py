"""`fastenough report`: render a run directory or a trace again, in any format."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fastenough.errors import InputNotFoundError, UsageError
from fastenough.inputs.numbers import MAX_THREADS, whole_number
from fastenough.outputs import json_output
from fastenough.outputs.output_file import open_output, resolve

if TYPE_CHECKING:
    from fastenough.report.model import Report

HELP = "render a run directory or trace(s) again: HTML, Markdown, JSON or the terminal"
DESCRIPTION = """\
Render the report of a `fastenough run` directory, or of profiler traces, in
one of four formats:

  --html       one self-contained page (inline SVG charts, no script, no
               external request: it opens offline, as an attachment or a CI
               artifact): phase timeline, device and host series over time,
               steady step-time distribution, device time split, findings,
               top kernels and ops, the reproducibility record
  --md         Markdown to paste into a pull request (the same sections, no
               charts)
  --json       the fastenough.report/1 document
  --terminal   the table report `fastenough run` prints

Without a format flag the format follows -o's extension (.html, .md, .json)
and is the terminal report when there is no -o. Without -o the output goes to
stdout.

RUN_DIR is a directory that `fastenough run` wrote (.fastenough/runs/<id>/):
its report.json is rendered as it is (--reanalyze analyses the directory
again, e.g. with a newer fastenough). Anything else is read as traces, as
`fastenough analyze` reads them: one or more .json / .json.gz files (one per
rank) or a directory of tensorboard_trace_handler output.

examples:
  fastenough report .fastenough/runs/20261203T101500Z-1a2b3c -o report.html
  fastenough report .fastenough/runs/20261203T101500Z-1a2b3c --md | pbcopy
  fastenough report trace.json.gz -o trace-report.html
  fastenough report logs/rank*.pt.trace.json.gz --html > job.html

-o follows a symbolic link to its target (the link stays), writes a device or
a FIFO in place as a stream, and refuses to name any file the command reads
(an input trace, the run's report.json without --reanalyze).

A run directory left without a report (fastenough was killed, or the disk was
full) is analysed again with --reanalyze; `-o RUN/report.json` (and
report.md, report.html) then writes the files the run would have written.

exit status: 0 ok, 2 usage error, unreadable input or unwritable output. When
the report is made now (traces, or a run directory with --reanalyze), also
those of `fastenough analyze` for the same input: 1 the trace had errors that
make figures unreliable, 5 data was lost reading it (a truncated file, a trace
of the run that could not be analysed); the report is written either way.
"""

FORMATS = ("html", "md", "json", "terminal")
_EXTENSIONS = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="RUN_DIR|TRACE",
                   help="a run directory, or trace file(s) / a directory of traces")
    fmt = p.add_mutually_exclusive_group()
    for name in FORMATS:
        fmt.add_argument(f"--{name}", dest="format", action="store_const", const=name,
                         help=f"render as {name}")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE instead of stdout: a regular file is replaced "
                   "atomically (through a symbolic link: its target), a device or FIFO is "
                   "written as a stream, `-` is stdout; never one of the inputs")
    p.add_argument("--reanalyze", action="store_true",
                   help="with a RUN_DIR: analyse the directory again instead of reading its "
                   "report.json")
    p.add_argument("--window", type=whole_number(1), metavar="N",
                   help="with a directory of traces: the profiler window to analyse "
                   "(default: the newest; see `fastenough analyze --help`)")
    p.add_argument("--threads", type=whole_number(0, MAX_THREADS), default=0, metavar="N",
                   help="load at most N trace files at once (default: one per core)")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.set_defaults(func=run)


def is_run_dir(path: str) -> bool:
    return os.path.isdir(path) and (
        os.path.exists(os.path.join(path, "report.json"))
        or os.path.exists(os.path.join(path, "meta.json")))


def _read_saved(report_path: str, hint: str = "") -> Report:
    """A saved report.json, read into the typed Report: the typed loader decides what is
    a report (one that is not, or a damaged one, is refused with exit 2 naming the JSON
    path of the first value wrong)."""
    from fastenough.errors import BadInputError
    from fastenough.report import load
    from fastenough.store.run_dir import read_run_file

    try:
        doc = json.loads(read_run_file(report_path))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else e
        raise InputNotFoundError(f"{report_path}: not a readable report ({why}){hint}") from None
    try:
        return load(doc, report_path)
    except BadInputError as e:
        if not hint:
            raise
        raise BadInputError(f"{e}{hint}") from None


def _load_run_dir(path: str, reanalyze: bool, no_progress: bool = False) -> Report:
    report_path = os.path.join(path, "report.json")
    if not reanalyze and os.path.exists(report_path):
        return _read_saved(report_path, "; --reanalyze analyses the run directory again")
    from fastenough.report import load
    from fastenough.store.repeatability import earlier_runs_of
    from fastenough.supervisor.session import analyze_run_dir_text

    try:
        # The same report as the run wrote: lint's cross-reference, and the
        # comparison with the runs of the same command before this one.
        text = analyze_run_dir_text(Path(path), None if not no_progress else False,
                                    cross_reference_lint=True,
                                    earlier_runs=earlier_runs_of(path))
    except Exception as e:  # noqa: BLE001 - the core's errors name the file
        raise InputNotFoundError(f"{path}: {e}") from None
    return load(text)


def _is_report_file(path: str) -> bool:
    """A saved report.json (rather than a trace): its first key is the schema."""
    if not path.endswith(".json") or not os.path.isfile(path):
        return False
    from fastenough.store.run_dir import open_run_file

    try:
        with open_run_file(path) as f:
            head = f.read(512)
    except OSError:
        return False
    return b'"fastenough.report/' in head


def load_report(paths: list[str], args: argparse.Namespace) -> tuple[Report, str | None]:
    """The report, read once into the typed Report, and, for a run, its directory (the
    HTML charts read its files)."""
    if len(paths) == 1 and is_run_dir(paths[0]):
        return _load_run_dir(paths[0], args.reanalyze, args.no_progress), paths[0]
    if args.reanalyze:
        raise UsageError("--reanalyze applies to a run directory")
    if len(paths) == 1 and _is_report_file(paths[0]):
        parent = os.path.dirname(os.path.abspath(paths[0]))
        return _read_saved(paths[0]), parent if is_run_dir(parent) else None
    # Traces: exactly what `fastenough analyze` reads.
    from fastenough.cli import analyze
    from fastenough.report import load

    paths = analyze._expand_directory(paths, args.window)
    total = analyze._check_paths(paths)
    show = (not args.no_progress and total >= analyze.PROGRESS_MIN_BYTES
            and sys.stderr.isatty()) or os.environ.get("FASTENOUGH_FORCE_PROGRESS") == "1"
    return load(analyze.analyze_paths_text(paths, threads=args.threads,
                                           show_progress=show)), None


def render(report: Report, fmt: str, run_dir: str | None) -> str:
    """`report` as `fmt` asks: json writes the document (its keys and values as they were
    read), the others format its view."""
    if fmt == "json":
        return json_output.dumps(report.to_json()) + "\n"
    if fmt == "html":
        from fastenough.render.html import report_to_html

        return report_to_html(report, run_dir)
    if fmt == "md":
        from fastenough.render.markdown import report_to_markdown

        return report_to_markdown(report)
    import io

    from rich.console import Console

    from fastenough.render.terminal import print_report

    buf = io.StringIO()
    print_report(report, console=Console(file=buf, width=140, color_system=None))
    return buf.getvalue()


# What rendering a run directory does not read: -o may name these (--reanalyze
# does not read report.json either: `report RUN --reanalyze -o RUN/report.json`).
_RUN_OUTPUTS = ("report.md", "report.html")


def _run_dir_read(paths: list[str]) -> str | None:
    """The run directory whose files rendering reads: the one named, or the one a
    named report.json lies in (the HTML charts read its samples and steps)."""
    if len(paths) != 1:
        return None
    if is_run_dir(paths[0]):
        return paths[0]
    parent = os.path.dirname(os.path.abspath(paths[0]))
    return parent if _is_report_file(paths[0]) and is_run_dir(parent) else None


def _files_read(paths: list[str], run_dir: str | None, reanalyze: bool) -> list[str]:
    """Every file this command may read: -o must not name one of them."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, names in os.walk(p):
                files += [os.path.join(root, n) for n in names]
        else:
            files.append(p)
    if run_dir is not None:
        skip = {os.path.join(run_dir, n) for n in _RUN_OUTPUTS}
        if reanalyze:
            skip.add(os.path.join(run_dir, "report.json"))
        for root, _dirs, names in os.walk(run_dir):
            files += [os.path.join(root, n) for n in names
                      if os.path.join(root, n) not in skip]
        files = [f for f in files if f not in skip]
    return files


def run(args: argparse.Namespace) -> int:
    from fastenough.inputs.run_ref import resolve_run_ref

    args.paths = [resolve_run_ref(p) for p in args.paths]
    fmt = args.format
    if fmt is None and args.output:
        fmt = _EXTENSIONS.get(os.path.splitext(args.output)[1].lower())
        if fmt is None:
            raise UsageError(f"-o {args.output}: say the format (--html, --md, --json or "
                             "--terminal); the extension does not tell")
    fmt = fmt or "terminal"
    target = None
    if args.output:
        # Checked before the analysis: a refused name costs nothing.
        target = resolve(args.output, _files_read(args.paths, _run_dir_read(args.paths),
                                                  args.reanalyze))
    report, run_dir = load_report(args.paths, args)
    # Analysed now (not a saved report.json rendered again): analyze's status.
    analysed = args.reanalyze or not (run_dir is not None or
                                      (len(args.paths) == 1 and _is_report_file(args.paths[0])))
    from fastenough.cli.analyze import exit_status

    def status() -> int:
        return exit_status(report) if analysed else 0

    if fmt == "terminal" and target is None:
        from fastenough.render.terminal import print_report

        print_report(report)
        return status()
    text = render(report, fmt, run_dir)
    if target is None:
        sys.stdout.write(text)
        return status()
    with open_output(target) as f:
        f.write(text.encode("utf-8"))
    if target.path is not None:
        sys.stderr.write(f"fastenough: wrote {target.shown}\n")
    return status()
