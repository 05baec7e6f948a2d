"""The run history in `.fastenough/runs.db`: one summary row per `fastenough run`
(table runs), and one per `fastenough ab` comparison (table abs; its runs are
in its directory, not in runs)."""

from __future__ import annotations

import math
import os
import sqlite3
import stat
from pathlib import Path

from fastenough.errors import BadInputError
from fastenough.regular_file import kind_of
from fastenough.visible import visible

COLUMNS = (
    "id",
    "started_at",
    "command",
    "exit_status",
    "wall_s",
    "steady_steps_per_s",
    "items_per_s",
    "top_finding",
    "run_dir",
    "measurement",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT,          -- UTC, ISO 8601
  command TEXT NOT NULL,    -- shell-quoted
  exit_status INTEGER,      -- 128 + signal when killed, like a shell
  wall_s REAL,
  steady_steps_per_s REAL,
  items_per_s REAL,
  top_finding TEXT,         -- finding code ranked first
  run_dir TEXT NOT NULL,
  measurement TEXT          -- complete | partial | blind (report.json "measurement")
)
"""
AB_COLUMNS = (
    "id",
    "started_at",
    "command_a",
    "command_b",
    "runs",
    "unit",
    "ratio",
    "low",
    "high",
    "speed",
    "verdict",
    "outputs",
    "protocol_changes",
    "ab_dir",
)

_AB_SCHEMA = """
CREATE TABLE IF NOT EXISTS abs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT,          -- UTC, ISO 8601
  command_a TEXT NOT NULL,  -- shell-quoted, with the side's environment first
  command_b TEXT NOT NULL,
  runs INTEGER,             -- runs made (A B B A x rounds, fewer when one failed)
  unit TEXT,                -- items/s | steps/s
  ratio REAL,               -- B/A of steady throughput
  low REAL,                 -- its interval
  high REAL,
  speed TEXT,               -- B faster | B slower | no difference shown | not measured
  verdict TEXT,             -- the whole verdict line
  outputs TEXT,             -- compare verdict, or "not compared"
  protocol_changes INTEGER,
  ab_dir TEXT NOT NULL
)
"""
# Columns added after the first release, for databases made before them.
_ADDED = {"measurement": "TEXT"}

# What each column holds, for reading a database someone else may have written
# (`history --db`, a runs.db from another version or damaged): a value of
# another type is read as missing (None), never passed on to be formatted or
# printed as JSON (a REAL can hold Infinity; NaN/Infinity are no JSON).
_INTEGER = {"id", "exit_status", "runs", "protocol_changes"}
_REAL = {"wall_s", "steady_steps_per_s", "items_per_s", "ratio", "low", "high"}


def _typed(column: str, value: object) -> object:
    if value is None:
        return None
    if column in _INTEGER:
        return value if isinstance(value, int) and abs(value) < 2**63 else None
    if column in _REAL:
        ok = isinstance(value, int | float) and math.isfinite(value)
        return float(value) if ok else None  # type: ignore[arg-type]
    if isinstance(value, bytes):  # a BLOB where text belongs
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


class HistoryUnwritableError(Exception):
    """A history database a row cannot be added to, for a reason that another try will
    not change (damaged, or something else than a file): the message says what to do."""


class HistoryDB:
    """create=True: the database `run` and `ab` add rows to (made when missing).
    create=False: an existing database, only read (`history`, run numbers):
    opened read-only, never changed, and anything that is not a history
    database is a BadInputError naming the file (issue 34, item 11)."""

    def __init__(self, path: Path | str, create: bool = True) -> None:
        self.path = Path(path)
        self._read_only = not create
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        else:
            self._open_read_only()
            return
        self._refuse_what_is_no_file()
        try:
            # Several runs may finish at once (a sweep): wait for the lock a while.
            self._db = sqlite3.connect(str(self.path), timeout=30)
            self._db.execute(_SCHEMA)
            self._db.execute(_AB_SCHEMA)
            have = {c[1] for c in self._db.execute("PRAGMA table_info(runs)")}
            for name, kind in _ADDED.items():
                if name not in have:
                    with self._db:
                        self._db.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
        except sqlite3.DatabaseError as e:
            self._damaged(e)

    def _refuse_what_is_no_file(self) -> None:
        """A FIFO, directory or device where runs.db goes: sqlite would wait on it or
        fail with "disk I/O error"; say what it is instead."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return  # made now
        except OSError as e:
            raise HistoryUnwritableError(e.strerror or str(e)) from None
        if not stat.S_ISREG(st.st_mode):
            raise HistoryUnwritableError(f"not a regular file ({kind_of(st.st_mode)}); "
                                         "remove it and the next run starts a new history")

    def _damaged(self, e: sqlite3.DatabaseError) -> None:
        """sqlite's "file is not a database" and "database disk image is malformed" are
        plain DatabaseErrors and stay so however often one tries: the file is damaged.
        An OperationalError (the disk is full, the database is locked) passes as it is."""
        if type(e) is not sqlite3.DatabaseError:
            raise e
        raise HistoryUnwritableError(f"{e}: not a history database fastenough can add to; "
                                     "move it aside and the next run starts a new one") from None

    def _open_read_only(self) -> None:
        from fastenough.inputs.input_file import require_regular_file

        require_regular_file(str(self.path))  # a FIFO would block sqlite's open
        try:
            uri = self.path.resolve().as_uri() + "?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, timeout=30)
            tables = {r[0] for r in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            self._columns = {t: {c[1] for c in self._db.execute(f"PRAGMA table_info({t})")}
                             for t in ("runs", "abs") if t in tables}
        except sqlite3.Error as e:
            self._refuse(e)

    def _refuse(self, e: Exception) -> None:
        raise BadInputError(f"{visible(str(self.path))}: not a readable fastenough history "
                            f"database ({visible(str(e))})") from None

    def _select(self, table: str, columns: tuple[str, ...], tail: str, args: list) -> list:
        """Rows of `table` as dicts of `columns`; in a database only read, a
        missing table is no rows and a missing column is None in each."""
        if self._read_only:
            have = self._columns.get(table)
            if have is None:
                return []
            exprs = [c if c in have else "NULL" for c in columns]
        else:
            exprs = list(columns)
        sql = f"SELECT {', '.join(exprs)} FROM {table} {tail}"
        try:
            rows = self._db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            self._refuse(e)
        return [{c: _typed(c, v) for c, v in zip(columns, r, strict=True)} for r in rows]

    def add_run(self, row: dict) -> int:
        cols = [c for c in COLUMNS if c != "id"]
        try:
            with self._db:
                cur = self._db.execute(
                    f"INSERT INTO runs ({', '.join(cols)}) VALUES "
                    f"({', '.join('?' for _ in cols)})",
                    [row.get(c) for c in cols],
                )
        except sqlite3.DatabaseError as e:
            self._damaged(e)
        return int(cur.lastrowid)

    def list_runs(self, limit: int | None = None) -> list[dict]:
        """Newest first."""
        if limit is None:
            return self._select("runs", COLUMNS, "ORDER BY id DESC", [])
        return self._select("runs", COLUMNS, "ORDER BY id DESC LIMIT ?", [limit])

    def run_dir_of(self, run_id: int) -> str | None:
        """The run directory of history row `run_id` (None: no such row)."""
        if not 0 <= run_id < 2**63:
            return None
        rows = self._select("runs", ("run_dir",), "WHERE id = ?", [run_id])
        return rows[0]["run_dir"] if rows else None

    def add_ab(self, row: dict) -> int:
        cols = [c for c in AB_COLUMNS if c != "id"]
        with self._db:
            cur = self._db.execute(
                f"INSERT INTO abs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                [row.get(c) for c in cols],
            )
        return int(cur.lastrowid)

    def list_abs(self, limit: int | None = None) -> list[dict]:
        """Newest first."""
        if limit is None:
            return self._select("abs", AB_COLUMNS, "ORDER BY id DESC", [])
        return self._select("abs", AB_COLUMNS, "ORDER BY id DESC LIMIT ?", [limit])

    def close(self) -> None:
        self._db.close()
