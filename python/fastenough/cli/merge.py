"""`fastenough merge`: one job's report from the rank summaries that
`fastenough analyze --rank-summaries DIR` wrote (one per rank)."""

from __future__ import annotations

import argparse
import os

from fastenough.errors import UsageError

HELP = "combine rank summaries (analyze --rank-summaries) into the job's report"
DESCRIPTION = """\
Read the rank summaries (fastenough.rank-summary/1, docs/rank-summary.md) that
`fastenough analyze TRACES --rank-summaries DIR` wrote, one per rank, and print
the report of the whole job: the same report `fastenough analyze` gives for
the traces themselves (cross-rank findings such as straggler-rank included),
without the traces. Ranks can so be analysed where their traces are, one
node each, and merged where the summaries are gathered.

SUMMARY is a summary file (.json or .json.gz) or one directory of them
(*.summary.json). Files are merged in the order given; a directory's in the
order analyze had their traces, then by rank.

examples:
  fastenough analyze rank*.json.gz --rank-summaries sums/ > /dev/null
  fastenough merge sums/                 # the report, as analyze printed it
  fastenough merge sums/ --json | jq .findings
  fastenough merge node0/rank0.summary.json node1/rank1.summary.json --md

exit status: as `fastenough analyze`: 0 ok, 1 a trace had errors that make
figures unreliable, 2 usage error or a file that is not a rank summary, 5
data was lost reading a trace.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("merge", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="SUMMARY",
                   help="rank summary files, or one directory of them")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the fastenough.report/1 JSON")
    fmt.add_argument("--md", action="store_true", help="print the report as Markdown")
    p.set_defaults(func=run)


def summary_paths(paths: list[str]) -> list[str]:
    from fastenough.inputs.input_file import require_regular_file
    from fastenough.ranks.rank_summaries import directory_summaries

    dirs = [p for p in paths if os.path.isdir(p)]
    if dirs:
        if len(paths) > 1:
            from fastenough.visible import visible

            raise UsageError(f"{visible(dirs[0])}: a directory must be the only SUMMARY")
        return directory_summaries(dirs[0])
    for path in paths:
        require_regular_file(path)
    return paths


def merge_paths_text(paths: list[str]) -> str:
    """The merged report as the core wrote it."""
    from fastenough import _core

    return _core.merge_to_json(summary_paths(paths))


def run(args: argparse.Namespace) -> int:
    from fastenough.cli.analyze import show_report

    return show_report(merge_paths_text(args.paths), args)
