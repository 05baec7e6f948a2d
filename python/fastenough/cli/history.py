"""`fastenough history`: the runs recorded in .fastenough/runs.db."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import textwrap
from pathlib import Path

from fastenough.errors import UsageError
from fastenough.inputs.numbers import MAX_COUNT, whole_number
from fastenough.render.escape import terminal_text
from fastenough.visible import visible

HELP = "list earlier `fastenough run`s, or with --ab the `fastenough ab` comparisons (newest first)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help=HELP, description=HELP)
    p.add_argument("--limit", type=whole_number(1, MAX_COUNT), default=20, metavar="N",
                   help="at most N runs (default 20)")
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
        json.dump(rows, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    if not rows:
        sys.stdout.write(f"no runs recorded in {visible(path)}\n")
    else:
        from rich.console import Console

        Console().print(_table(rows, Console().width), highlight=False)
        sys.stdout.write("\n`fastenough report N` (or decide N, diff N M) opens run N;\n"
                         "`fastenough history --json` has each run's directory.\n")
    if abs_:
        last = abs_[0]
        sys.stdout.write(f"\n{len(abs_)} A/B comparison(s); the latest (#{last['id']}): "
                         f"{last['verdict']}. `fastenough history --ab` lists them.\n")
    return 0


def _print_abs(rows: list[dict], path: Path, as_json: bool) -> int:
    if as_json:
        json.dump(rows, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    if not rows:
        sys.stdout.write(f"no A/B comparisons recorded in {visible(path)}\n")
        return 0
    # One block per comparison: its figures and verdict on the first line,
    # each side's command on a line of its own, every line cut at the
    # terminal's width with an ellipsis: never a word folded in the middle.
    from rich.console import Console

    width = max(Console().width, 40)

    def fit(line: str) -> str:
        line = visible(line)
        return line if len(line) <= width else line[: width - 1] + "…"

    out = []
    for r in rows:
        started = r["started_at"] or ""
        interval = (f" ({r['low']:.3f} .. {r['high']:.3f})"
                    if r["low"] is not None and r["high"] is not None else "")
        ratio = "" if r["ratio"] is None else f"  B/A {r['ratio']:.3f}{interval}"
        out.append(fit(f"#{r['id']}  {started[5:10]} {started[11:16]}{ratio}"))
        verdict = _fmt(r["verdict"]) + (f"; outputs {r['outputs']}" if r["outputs"] else "")
        out += textwrap.wrap(visible(verdict), width, initial_indent="    ",
                             subsequent_indent="    ", break_long_words=False,
                             break_on_hyphens=False)
        out.append(fit(f"    A: {_short_command(r['command_a'])}"))
        out.append(fit(f"    B: {_short_command(r['command_b'])}"))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


# The table of runs. Every column the researcher compares runs by stays at 80
# columns: the run's number (what report, decide and diff take), the wall
# time, ONE throughput (items/s where the run counted items, else steps/s: a
# fixed run with larger batches must not look 3x slower), the status (the
# exit status when it failed, else how complete the measurement was), the top
# finding and the command. The start time and the run directory come in when
# the terminal has room for them.
_ALWAYS = ("run", "wall", "throughput", "status", "top finding", "command")
_OPTIONAL = ("started (UTC)", "run directory")  # added in this order while they fit
_RIGHT = {"run", "wall", "throughput"}
MIN_COMMAND = 20


def _throughput(r: dict) -> str:
    if r.get("items_per_s") is not None:
        return f"{r['items_per_s']:.1f} items/s"
    if r.get("steady_steps_per_s") is not None:
        return f"{r['steady_steps_per_s']:.2f} steps/s"
    return "-"


def _status(r: dict) -> str:
    exit_status = r.get("exit_status")
    if exit_status not in (0, None):
        return f"exit {exit_status}"
    return _fmt(r.get("measurement"))


def _run_directory(r: dict) -> str:
    path = r.get("run_dir") or "-"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def _cells(r: dict) -> dict[str, str]:
    started = r["started_at"] or ""
    return {
        "run": _fmt(r["id"]),
        # 2026-12-02T21:06:08Z -> 12-02 21:06: the year only pushes the command off screen.
        "started (UTC)": (f"{started[5:10]} {started[11:16]}" if len(started) >= 16
                          else _fmt(r["started_at"])),
        "wall": "-" if r["wall_s"] is None else f"{r['wall_s']:.1f} s",
        "throughput": _throughput(r),
        "status": _status(r),
        "top finding": _fmt(r["top_finding"]),
        "command": _short_command(r["command"]),
        "run directory": _run_directory(r),
    }


def _table(rows: list[dict], width: int):
    """The history table fitted to `width` columns (see _ALWAYS): the command
    takes what is left, at least MIN_COMMAND characters, cut with an ellipsis."""
    from rich.table import Table

    # Widths are those of the text as shown (control characters as escapes).
    cells = [{k: visible(v) for k, v in _cells(r).items()} for r in rows]
    widths = {k: max([len(k)] + [len(c[k]) for c in cells]) for k in _ALWAYS + _OPTIONAL}

    def rest(columns: list[str]) -> int:  # room left for the command (2 spaces between)
        return (width - sum(widths[k] for k in columns if k != "command")
                - 2 * (len(columns) - 1))

    shown = list(_ALWAYS)
    for extra in _OPTIONAL:
        trial = shown[:1] + [extra] + shown[1:] if extra == "started (UTC)" else shown + [extra]
        if rest(trial) >= max(MIN_COMMAND, min(widths["command"], 40)):
            shown = trial
    room = max(rest(shown), MIN_COMMAND)
    for c in cells:
        if len(c["command"]) > room:
            c["command"] = c["command"][: room - 1] + "…"
    t = Table(box=None, header_style="bold", pad_edge=False)
    for k in shown:
        t.add_column(k, no_wrap=True, justify="right" if k in _RIGHT else "left",
                     min_width=min(widths[k], room) if k == "command" else widths[k])
    for c in cells:
        t.add_row(*[terminal_text(c[k]) for k in shown])
    return t
