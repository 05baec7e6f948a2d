"""`fastenough history`: the runs recorded in .fastenough/runs.db."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from fastenough.errors import UsageError
from fastenough.render.escape import terminal_text, visible

HELP = "list earlier `fastenough run`s, or with --ab the `fastenough ab` comparisons (newest first)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help=HELP, description=HELP)
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N runs (default 20)")
    p.add_argument("--json", action="store_true", help="print the rows as a JSON array")
    p.add_argument("--ab", action="store_true",
                   help="list the A/B comparisons (one row each: verdict, B/A and interval)")
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
    abs_: list[dict] = []
    if path.exists():
        from fastenough.store.history import HistoryDB

        db = HistoryDB(path, create=False)
        rows = db.list_runs(args.limit)
        abs_ = db.list_abs(args.limit)
        db.close()
    if args.ab:
        return _print_abs(abs_, path, args.json)
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not rows:
        sys.stdout.write(f"no runs recorded in {visible(path)}\n")
    else:
        from rich.console import Console

        Console().print(_table(rows, Console().width), highlight=False)
    if abs_:
        last = abs_[0]
        sys.stdout.write(f"\n{len(abs_)} A/B comparison(s); the latest (#{last['id']}): "
                         f"{last['verdict']}. `fastenough history --ab` lists them.\n")
    return 0


def _print_abs(rows: list[dict], path: Path, as_json: bool) -> int:
    if as_json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not rows:
        sys.stdout.write(f"no A/B comparisons recorded in {visible(path)}\n")
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(box=None, header_style="bold", pad_edge=False)
    for name, right in (("id", True), ("started (UTC)", False), ("B/A", True),
                        ("interval", False), ("verdict", False), ("outputs", False),
                        ("A", False), ("B", False)):
        t.add_column(name, justify="right" if right else "left", overflow="fold")
    for r in rows:
        started = r["started_at"] or ""
        interval = (f"{r['low']:.3f} .. {r['high']:.3f}"
                    if r["low"] is not None and r["high"] is not None else "-")
        t.add_row(*map(terminal_text, (
            _fmt(r["id"]), f"{started[5:10]} {started[11:16]}", _fmt(r["ratio"], ".3f"),
            interval, _fmt(r["verdict"]), _fmt(r["outputs"]),
            _short_command(r["command_a"]), _short_command(r["command_b"]))))
    Console().print(t, highlight=False)
    return 0


# Columns in the order shown; the command goes last and takes what is left.
_COLUMNS = ("id", "started (UTC)", "exit", "wall s", "steps/s", "items/s", "measured",
            "top finding", "command")
_RIGHT = {2, 3, 4, 5}
MIN_COMMAND = 24


def _cells(r: dict) -> list[str]:
    started = r["started_at"] or ""
    return [
        _fmt(r["id"]),
        # 2026-12-02T21:06:08Z -> 12-02 21:06: the year only pushes the command off screen.
        f"{started[5:10]} {started[11:16]}" if len(started) >= 16 else _fmt(r["started_at"]),
        _fmt(r["exit_status"]),
        _fmt(r["wall_s"], ".1f"),
        _fmt(r["steady_steps_per_s"], ".2f"),
        _fmt(r["items_per_s"], ".1f"),
        _fmt(r.get("measurement")),
        _fmt(r["top_finding"]),
        _short_command(r["command"]),
    ]


def _table(rows: list[dict], width: int):
    """The history table fitted to `width` columns: the figures, the measurement and
    the finding stay whole; on a narrow terminal the less telling columns go first
    (wall time, then items/s), so that the command keeps MIN_COMMAND characters."""
    from rich.table import Table

    # Widths are those of the text as shown (control characters as escapes).
    cells = [[visible(c) for c in _cells(r)] for r in rows]
    keep = list(range(len(_COLUMNS)))
    widths = [max([len(_COLUMNS[i])] + [len(c[i]) for c in cells]) for i in keep]

    def rest() -> int:  # room left for the command (2 spaces between columns)
        return width - sum(widths[i] for i in keep[:-1]) - 2 * (len(keep) - 1)

    for drop in (3, 5, 1):  # wall s, items/s, started
        if rest() >= MIN_COMMAND:
            break
        keep.remove(drop)
    room = max(rest(), MIN_COMMAND)
    for c in cells:
        if len(c[-1]) > room:
            c[-1] = c[-1][: room - 1] + "…"
    t = Table(box=None, header_style="bold", pad_edge=False)
    for i in keep:
        last = i == len(_COLUMNS) - 1
        t.add_column(_COLUMNS[i], no_wrap=True, justify="right" if i in _RIGHT else "left",
                     min_width=min(widths[i], room) if last else widths[i])
    for c in cells:
        t.add_row(*[terminal_text(c[i]) for i in keep])
    return t
