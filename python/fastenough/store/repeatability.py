"""Repeatability (issue 37, item 10): the earlier runs of the same command that
the history (.fastenough/runs.db in the working directory) holds, for the core
to compare their findings with this run's (cpp/fastenough/rundir/repeatability.h
writes the report's "repeatability": which findings came in every run, with the
spread of their savings, and which came and went). Their report.json files are
read by the core, which skips those it cannot read and uses the newest four."""

from __future__ import annotations

import os
from pathlib import Path

# History rows read to find the earlier runs (newest first).
ROWS_READ = 500


def earlier_runs(cwd: str | os.PathLike, command: str, run_dir: str | os.PathLike,
                 exit_status: int | None) -> list[tuple[int | None, str, str | None]]:
    """The earlier runs of `command` in cwd's history that ended the same way, as
    (id, run_dir, started_at), newest first; not this run's own directory, nor,
    when the history already lists this run (`report --reanalyze`), the runs
    after it."""
    from fastenough.store.history import HistoryDB

    db_path = Path(cwd).resolve() / ".fastenough" / "runs.db"
    if not db_path.is_file():
        return []
    db = HistoryDB(db_path, create=False)
    try:
        rows = db.list_runs(ROWS_READ)
    finally:
        db.close()
    this = os.path.realpath(run_dir)
    for i, row in enumerate(rows):
        if row.get("run_dir") and os.path.realpath(row["run_dir"]) == this:
            rows = rows[i + 1:]
            break
    out = []
    for row in rows:
        if row.get("command") != command or row.get("exit_status") != exit_status:
            continue
        d = row.get("run_dir")
        if not d or os.path.realpath(d) == this:
            continue
        out.append((row.get("id"), str(d), row.get("started_at")))
    return out


def earlier_runs_of(run_dir: str | os.PathLike) -> list[tuple[int | None, str, str | None]]:
    """earlier_runs for a run directory analysed again, from its meta.json (its
    command, where it ran and how it ended); none when that cannot be read."""
    import json
    import shlex

    from fastenough.store.run_dir import read_run_file

    try:
        meta = json.loads(read_run_file(Path(run_dir) / "meta.json"))
        command, cwd = meta["command"], meta["cwd"]
        if not isinstance(command, list) or not isinstance(cwd, str):
            return []
        return earlier_runs(cwd, shlex.join(str(c) for c in command), run_dir,
                            meta.get("exit_status"))
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return []
