"""`fastenough analyze`: diagnose profiler traces the user already has."""

from __future__ import annotations

import argparse
import json
import os
import sys

from fastenough.errors import (
    EXIT_FINDINGS_OR_COUNTERS,
    EXIT_OK,
    InputNotFoundError,
    UsageError,
)

HELP = "diagnose PyTorch profiler traces (.json / .json.gz), one file per rank"
DESCRIPTION = """\
Read one or more PyTorch profiler traces (Kineto Chrome-trace JSON, gzipped or
not; torch_npu trace_view.json; legacy arrays) and report, per rank and device:
where device time went (compute / communication / memcpy / memset / idle), why
the device was idle (waiting for the host, between kernels, other), step times,
kernel launch overhead, the hottest kernels and CPU ops, and findings ranked by
the most they can save.

Several files are loaded in parallel (one per rank of a distributed job).

examples:
  fastenough analyze trace.json.gz
  fastenough analyze logs/rank*.pt.trace.json.gz --md > report.md
  fastenough analyze trace.json --json | jq .devices

exit status: 0 ok, 1 the trace had errors that make figures unreliable,
2 usage error or unreadable input.
"""

PROGRESS_MIN_BYTES = 100 * 1024 * 1024


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="trace file(s); one per rank")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the fastenough.report/1 JSON")
    fmt.add_argument("--md", action="store_true", help="print the report as Markdown")
    p.add_argument(
        "--threads", type=int, default=0, metavar="N",
        help="load at most N files at once (default: one per core)",
    )
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.set_defaults(func=run)


def _check_paths(paths: list[str]) -> int:
    total = 0
    for path in paths:
        if not os.path.exists(path):
            raise InputNotFoundError(f"{path}: no such file")
        if os.path.isdir(path):
            raise UsageError(
                f"{path}: is a directory; name the trace files (e.g. {path}/*.json.gz)"
            )
        if not os.access(path, os.R_OK):
            raise InputNotFoundError(f"{path}: permission denied")
        total += os.path.getsize(path)
    return total


def analyze_paths(paths: list[str], threads: int = 0, show_progress: bool = False) -> dict:
    """Run the C++ analysis and return the report as a dict."""
    from fastenough import _core

    if threads < 0:
        raise UsageError("--threads must be 0 (automatic) or more")
    if not show_progress:
        return json.loads(_core.analyze_to_json(paths, None, threads))

    from fastenough.render.progress import byte_progress

    with byte_progress("reading traces") as update:
        text = _core.analyze_to_json(paths, update, threads)
    return json.loads(text)


def run(args: argparse.Namespace) -> int:
    total = _check_paths(args.paths)
    show_progress = (
        not args.no_progress and total >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
    ) or os.environ.get("FASTENOUGH_FORCE_PROGRESS") == "1"
    report = analyze_paths(args.paths, threads=args.threads, show_progress=show_progress)

    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.md:
        from fastenough.render.markdown import report_to_markdown

        sys.stdout.write(report_to_markdown(report))
    else:
        from fastenough.render.terminal import print_report

        print_report(report)

    has_errors = any(c.get("severity") == "error" for c in report.get("counters", []))
    return EXIT_FINDINGS_OR_COUNTERS if has_errors else EXIT_OK
