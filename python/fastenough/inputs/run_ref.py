"""A run named the way `fastenough history` shows it: the commands that take a
run directory (report, decide, diff) also take the run's history number
("7" or "#7") or its directory's name under .fastenough/runs, so that a
researcher copies five characters from `history`, not a 60-character path.

A path that exists always wins: a file or folder named "7" is what it is."""

from __future__ import annotations

import os
from pathlib import Path

from fastenough.errors import InputNotFoundError


def resolve_run_ref(text: str, cwd: str | None = None) -> str:
    """`text` itself when it exists (or names nothing run-like); else the run
    directory it refers to. A history number without such a run is an error
    that says where it looked."""
    if os.path.exists(text) or os.sep in text:
        return text
    root = Path(cwd or os.getcwd()) / ".fastenough"
    number = text[1:] if text.startswith("#") else text
    if number.isascii() and number.isdigit():
        db_path = root / "runs.db"
        run_dir = None
        if db_path.is_file():
            from fastenough.store.history import HistoryDB

            db = HistoryDB(db_path, create=False)
            try:
                # A number beyond any row's (or int()'s 4300 digits) is no run.
                run_dir = db.run_dir_of(int(number)) if len(number) < 19 else None
            finally:
                db.close()
        if run_dir is None:
            raise InputNotFoundError(f"{text}: no such path, and no run #{number} in "
                                     f"{db_path} (`fastenough history` lists the runs)")
        return run_dir
    named = root / "runs" / text
    return str(named) if named.is_dir() else text
