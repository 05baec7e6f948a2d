"""`fastenough history`: the runs recorded in .fastenough/runs.db."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from fastenough.errors import UsageError

HELP = "list earlier `fastenough run`s (newest first)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help=HELP, description=HELP)
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N runs (default 20)")
    p.add_argument("--json", action="store_true", help="print the rows as a JSON array")
    p.add_argument(
        "--db", metavar="PATH", default=None,
        help="history database (default: .fastenough/runs.db in the current directory)",
    )
    p.set_defaults(func=run)


def _short_command(command) -> str:
    """'/usr/bin/python3.11 -m pkg' -> 'python3.11 -m pkg': the program's name is
    enough to recognise a run, its directory only pushes the arguments off screen."""
    text = _fmt(command)
    try:
        argv = shlex.split(text)
    except ValueError:
        return text
    if argv and "/" in argv[0]:
        argv[0] = os.path.basename(argv[0])
        return shlex.join(argv)
    return text


def _fmt(v: object, spec: str = "") -> str:
    if v is None:
        return "-"
    return format(v, spec) if spec else str(v)


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be 1 or more")
    path = Path(args.db) if args.db else Path.cwd() / ".fastenough" / "runs.db"
    rows: list[dict] = []
    if path.exists():
        from fastenough.store.history import HistoryDB

        db = HistoryDB(path, create=False)
        rows = db.list_runs(args.limit)
        db.close()
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not rows:
        sys.stdout.write(f"no runs recorded in {path}\n")
        return 0
    from rich.console import Console
    from rich.table import Table

    columns = ("id", "started (UTC)", "exit", "wall s", "steps/s", "items/s", "top finding",
               "command")
    cells = [
        [
            _fmt(r["id"]),
            _fmt(r["started_at"]),
            _fmt(r["exit_status"]),
            _fmt(r["wall_s"], ".1f"),
            _fmt(r["steady_steps_per_s"], ".2f"),
            _fmt(r["items_per_s"], ".1f"),
            _fmt(r["top_finding"]),
            _short_command(r["command"]),
        ]
        for r in rows
    ]
    console = Console()
    widths = [max([len(col)] + [len(c[i]) for c in cells]) for i, col in enumerate(columns)]
    # The command takes what is left and is cut at the end: the figures and the
    # finding must stay readable on a narrow terminal (2 spaces between columns).
    rest = console.width - sum(widths[:-1]) - 2 * (len(columns) - 1) - 2
    rest = max(rest, 12)
    for c in cells:
        if len(c[-1]) > rest:
            c[-1] = c[-1][: rest - 1] + "…"
    t = Table(box=None, header_style="bold")
    for i, col in enumerate(columns):
        t.add_column(col, no_wrap=True, min_width=min(widths[i], rest) if i == len(columns) - 1
                     else widths[i], justify="right" if i in (2, 3, 4, 5) else "left")
    for c in cells:
        t.add_row(*c)
    console.print(t)
    return 0
