"""`fastenough analyze`: diagnose profiler traces the user already has."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from fastenough.errors import (
    EXIT_DATA_LOSS,
    EXIT_FINDINGS_OR_COUNTERS,
    EXIT_OK,
    InputNotFoundError,
    UsageError,
)
from fastenough.inputs.numbers import MAX_THREADS, whole_number
from fastenough.visible import visible

if TYPE_CHECKING:
    from fastenough.report.model import Report

HELP = "diagnose PyTorch profiler traces (.json / .json.gz, one per rank, or a directory)"
DESCRIPTION = """\
Read one or more PyTorch profiler traces (Kineto Chrome-trace JSON, gzipped or
not; torch_npu trace_view.json; legacy arrays) and report, per rank and device:
where device time went (compute / communication / memcpy / memset / idle), why
the device was idle (waiting for the host, between kernels, other), step times,
kernel launch overhead, the hottest kernels and CPU ops, and findings ranked by
the most they can save.

Several files are loaded in parallel (one per rank of a distributed job).
A directory is read as torch.profiler.tensorboard_trace_handler writes it: one
<worker>.<time>.pt.trace.json[.gz] per rank and profiler cycle. The ranks of
one cycle (a window) are analysed together; with several cycles the newest is
analysed, and --window N picks another (stderr says how many there are).

examples:
  fastenough analyze trace.json.gz
  fastenough analyze logs/rank*.pt.trace.json.gz --md > report.md
  fastenough analyze ./log/resnet18    # tensorboard_trace_handler's output
  fastenough analyze trace.json --json | jq .devices
  fastenough analyze trace.json.gz --annotate annotated.json.gz
                              # the trace with its findings in it: open it in
                              # https://ui.perfetto.dev or chrome://tracing
  fastenough analyze rank*.json.gz --rank-summaries sums/
                              # also one small summary per rank, which
                              # `fastenough merge sums/` turns into this report
  fastenough analyze /shared/job7/rank*.json.gz --dask tcp://head:8786
                              # each rank summarised on a worker of a Dask
                              # cluster that reads /shared; merged here

Ranks are loaded, analysed and summarised by a pool of --threads loaders; each
rank's trace is freed once its summary is taken, so memory stays near one
trace per loader whatever the number of ranks. --rank-summaries DIR writes
those summaries (fastenough.rank-summary/1, docs/rank-summary.md) as
DIR/rank<R>.summary.json; ranks analysed apart (one node each) merge into the
job's report with `fastenough merge`.

--annotate OUT writes the trace (one file) back with a "fastenough findings"
process on top: a row per finding with a slice over each place it is about
(a sync and the idle after it, an idle gap, a serial run of kernels, an
exposed copy), and an instant event plus an arrow at the event where it
happens. The rest of the trace is copied byte for byte; OUT is gzip when it
ends in .gz.

A gzip trace may inflate to at most FASTENOUGH_MAX_INFLATE_RATIO (default 200)
times its size on disk (never less than 256 MiB is allowed): real traces
inflate 30 times at most, a gzip bomb far more. Set the variable higher to read
an unusual file. A FIFO or device is refused: save the trace to a file first.

exit status: 0 ok, 1 the trace had errors that make figures unreliable,
2 usage error or unreadable input (also: too large, as above), 5 the report
was written but data was lost reading the input (a truncated file, events
dropped as damaged or too large: the "Trace problems" table says which), so
its figures cover only what could be read.
"""

PROGRESS_MIN_BYTES = 100 * 1024 * 1024


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="trace file(s), one per rank, or one directory of them")
    p.add_argument("--window", type=whole_number(1), metavar="N",
                   help="with a directory: the profiler window (cycle) to analyse, 1 = "
                   "oldest (default: the newest)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the fastenough.report/1 JSON")
    fmt.add_argument("--md", action="store_true", help="print the report as Markdown")
    p.add_argument(
        "--threads", type=whole_number(0, MAX_THREADS), default=0, metavar="N",
        help="load at most N files at once (default: one per core)",
    )
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.add_argument("--rank-summaries", metavar="DIR",
                   help="also write each rank's summary (fastenough.rank-summary/1) to "
                   "DIR/rank<R>.summary.json; `fastenough merge DIR` makes the report again")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="summarise each trace on the workers of a running Dask cluster "
                   "(tcp://HOST:8786, or the scheduler's --scheduler-file), which must read "
                   "the same paths (shared storage); merge here. Needs "
                   "`pip install 'fastenough[dask]'` (docs/across-hosts.md)")
    p.add_argument("--device", metavar="NAME",
                   help="the device the traces ran on, for the roofline, where a trace's "
                   "deviceProperties do not name it (a name of the peak table in "
                   "docs/roofline.md: \"H100 SXM\", \"MI300X\", ...; a trace's own "
                   "deviceProperties win where the table knows them)")
    p.add_argument("--peaks", metavar="FILE.json",
                   help="device peaks that override or add to the built-in table: "
                   "{\"devices\": [{\"name\", \"tflops\": {\"bf16\": ...}, "
                   "\"memory_tb_per_s\", \"source\"}]} (docs/roofline.md)")
    p.add_argument("--annotate", metavar="OUT",
                   help="also write the trace with the findings in it to OUT (.json or "
                   ".json.gz), for Perfetto UI / chrome://tracing; one trace only")
    p.set_defaults(func=run)


def _expand_directory(paths: list[str], window: int | None) -> list[str]:
    dirs = [p for p in paths if os.path.isdir(p)]
    if not dirs:
        if window is not None:
            raise UsageError("--window applies to a directory of traces")
        return paths
    if len(paths) > 1:
        raise UsageError(f"{dirs[0]}: a directory must be the only PATH (its traces are "
                         "the ranks of one job)")
    from fastenough.inputs.trace_dir import select_traces

    chosen = select_traces(dirs[0], window)
    if chosen.note:
        sys.stderr.write(f"fastenough: {visible(chosen.note)}\n")
    return chosen.paths


def _check_paths(paths: list[str]) -> int:
    from fastenough.inputs.input_file import require_regular_file

    total = 0
    for path in paths:
        st = require_regular_file(path)
        if not os.access(path, os.R_OK):
            raise InputNotFoundError(f"{visible(path)}: permission denied")
        total += st.st_size
    return total


def _frame_roots() -> dict:
    """This interpreter's sys.path by kind: a trace recorded on this machine
    names its frames relative to the same directories (source_roots.py)."""
    from fastenough.source_roots import current_roots

    return current_roots()


def analyze_paths_text(paths: list[str], threads: int = 0, show_progress: bool = False,
                       summaries_dir: str | None = None, peaks: dict | None = None) -> str:
    """Run the C++ analysis: the report as the core wrote it (fastenough.report/1 JSON
    text; fastenough.report.load reads it); with summaries_dir, write each rank's
    summary there too (rank_summaries.py)."""
    from fastenough import _core

    if threads < 0:
        raise UsageError("--threads must be 0 (automatic) or more")
    roots = _frame_roots()
    peaks = peaks or {}
    if summaries_dir is not None:
        from fastenough.ranks.rank_summaries import prepare_dir, write_summaries

        prepare_dir(summaries_dir)

    def call(update):
        if summaries_dir is None:
            return _core.analyze_to_json(paths, update, threads, roots, **peaks)
        job = _core.analyze_with_summaries(paths, update, threads, roots, **peaks)
        write_summaries(summaries_dir, job["summaries"], paths)
        return job["report"]

    if not show_progress:
        return call(None)

    from fastenough.render.progress import byte_progress

    with byte_progress("reading traces") as update:
        return call(update)


def analyze_on_dask(address: str, paths: list[str], summaries_dir: str | None,
                    progress: bool = False, peaks: dict | None = None) -> str:
    """Each trace summarised on a Dask worker (dask_executor.py), merged here:
    the summaries are written to summaries_dir (or a temporary directory) and
    merged in input order, as `fastenough merge` does."""
    import tempfile

    from fastenough import _core
    from fastenough.ranks.dask_executor import summarise_on_dask
    from fastenough.ranks.rank_summaries import file_names, prepare_dir, write_summaries

    if summaries_dir is not None:
        prepare_dir(summaries_dir)
    summaries = summarise_on_dask(address, paths, _frame_roots(), progress, peaks)
    with tempfile.TemporaryDirectory(prefix="fastenough-dask-") as tmp:
        directory = summaries_dir or tmp
        if summaries_dir is not None:
            write_summaries(summaries_dir, summaries, paths)
        else:
            for name, (_, text) in zip(file_names([r for r, _ in summaries]), summaries,
                                       strict=True):
                with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                    f.write(text)
        names = file_names([r for r, _ in summaries])
        return _core.merge_to_json([os.path.join(directory, n) for n in names])


def annotate_path(path: str, out: str, threads: int = 0, show_progress: bool = False,
                  peaks: dict | None = None) -> str:
    """Analyse one trace, write it to `out` with its findings annotated; the report's text.
    `out` is written as outputs/output_file.py writes every file the user names."""
    from fastenough import _core
    from fastenough.outputs.output_file import open_output, resolve

    if out == "-":
        raise UsageError("--annotate -: stdout carries the report; name a file")
    target = resolve(out, [path], what="--annotate")
    gzip = out.endswith(".gz")
    roots = _frame_roots()
    peaks = peaks or {}
    with open_output(target, what="--annotate") as f:
        f.flush()
        if not show_progress:
            result = _core.annotate_to_json(path, f.fileno(), target.shown, gzip, None, threads,
                                            roots, **peaks)
        else:
            from fastenough.render.progress import byte_progress

            with byte_progress("reading trace") as update:
                result = _core.annotate_to_json(path, f.fileno(), target.shown, gzip, update,
                                                threads, roots, **peaks)
    c = result["counts"]
    sys.stderr.write(f"fastenough: annotated trace written to {visible(out)}: "
                     f"{c['findings']} finding(s), {c['slices']} place(s), {c['flows']} "
                     "arrow(s); open it in https://ui.perfetto.dev or chrome://tracing\n")
    return result["report"]


def run(args: argparse.Namespace) -> int:
    from fastenough.inputs.peaks import peak_options

    # Checked before the traces are read: a bad --peaks / --device costs nothing.
    peaks = peak_options(args.device, args.peaks)
    args.paths = _expand_directory(args.paths, args.window)
    # With --dask the workers read the traces; this host may not see them.
    total = 0 if args.dask else _check_paths(args.paths)
    show_progress = (
        not args.no_progress and total >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
    ) or os.environ.get("FASTENOUGH_FORCE_PROGRESS") == "1"
    if args.annotate:
        if len(args.paths) != 1:
            raise UsageError(f"--annotate writes one trace: give one file, not {len(args.paths)} "
                             "(annotate each rank's trace on its own)")
        if args.rank_summaries or args.dask:
            raise UsageError(f"--annotate and {'--dask' if args.dask else '--rank-summaries'}:"
                             " give one of them")
        text = annotate_path(args.paths[0], args.annotate, args.threads, show_progress, peaks)
    elif args.dask:
        text = analyze_on_dask(args.dask, args.paths, args.rank_summaries,
                               progress=show_progress or sys.stderr.isatty(), peaks=peaks)
    else:
        text = analyze_paths_text(args.paths, threads=args.threads, show_progress=show_progress,
                                  summaries_dir=args.rank_summaries, peaks=peaks)
    return show_report(text, args)


def show_report(text: str, args: argparse.Namespace) -> int:
    """Print the core's report text as --json (as it is: the core is its one
    writer) / --md / the terminal asks; the exit status its counters give (also
    `fastenough merge`'s). The text is read once, into the typed Report."""
    from fastenough.report import load

    if args.json:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    report = load(text)
    if args.md:
        from fastenough.render.markdown import report_to_markdown

        sys.stdout.write(report_to_markdown(report))
    elif not args.json:
        from fastenough.render.terminal import print_report

        print_report(report)
    return exit_status(report)


def exit_status(report: Report) -> int:
    """The exit status a report's reading gives, the same for `analyze` and `report`
    (and `merge`): 1 for error counters, 5 when data was lost (a truncated file,
    damaged events, a run's trace that could not be analysed; said on stderr)."""
    counters = [c for c in report.counters if c.count]
    if any(c.severity == "error" for c in counters):
        return EXIT_FINDINGS_OR_COUNTERS
    lost = [c.name for c in counters if c.severity == "data-loss"]
    problems = report.run_details.problems if report.run_details else ()
    unread = [p for p in problems if ": trace not analysed: " in p]
    if unread:
        lost.append(f"{len(unread)} trace(s) not analysed: {unread[0]}")
    if lost:
        sys.stderr.write(f"fastenough: data was lost reading the input ({', '.join(lost)}): "
                         "the figures cover only what could be read\n")
        return EXIT_DATA_LOSS
    return EXIT_OK
