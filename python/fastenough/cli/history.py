"""`fastenough history`: the runs recorded in .fastenough/runs.db."""

from __future__ import annotations

import argparse
import json
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

    t = Table(box=None, header_style="bold")
    for col in ("id", "started (UTC)", "exit", "wall s", "steps/s", "items/s", "top finding",
                "command"):
        t.add_column(col, no_wrap=True, overflow="ellipsis" if col == "command" else "fold")
    for r in rows:
        t.add_row(
            _fmt(r["id"]),
            _fmt(r["started_at"]),
            _fmt(r["exit_status"]),
            _fmt(r["wall_s"], ".1f"),
            _fmt(r["steady_steps_per_s"], ".2f"),
            _fmt(r["items_per_s"], ".1f"),
            _fmt(r["top_finding"]),
            _fmt(r["command"]),
        )
    Console().print(t)
    return 0
