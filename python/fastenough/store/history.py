"""The run history in `.fastenough/runs.db`: one summary row per `fastenough run`
(table runs), and one per `fastenough ab` comparison (table abs; its runs are
in its directory, not in runs)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

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


class HistoryDB:
    def __init__(self, path: Path | str, create: bool = True) -> None:
        self.path = Path(path)
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # Several runs may finish at once (a sweep): wait for the lock a while.
        self._db = sqlite3.connect(str(self.path), timeout=30)
        self._db.execute(_SCHEMA)
        self._db.execute(_AB_SCHEMA)
        have = {c[1] for c in self._db.execute("PRAGMA table_info(runs)")}
        for name, kind in _ADDED.items():
            if name not in have:
                with self._db:
                    self._db.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")

    def add_run(self, row: dict) -> int:
        cols = [c for c in COLUMNS if c != "id"]
        with self._db:
            cur = self._db.execute(
                f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                [row.get(c) for c in cols],
            )
        return int(cur.lastrowid)

    def list_runs(self, limit: int | None = None) -> list[dict]:
        """Newest first."""
        sql = f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY id DESC"
        args: list[int] = []
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [dict(zip(COLUMNS, r, strict=False)) for r in self._db.execute(sql, args)]

    def run_dir_of(self, run_id: int) -> str | None:
        """The run directory of history row `run_id` (None: no such row)."""
        row = self._db.execute("SELECT run_dir FROM runs WHERE id = ?", (run_id,)).fetchone()
        return row[0] if row else None

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
        sql = f"SELECT {', '.join(AB_COLUMNS)} FROM abs ORDER BY id DESC"
        args: list[int] = []
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [dict(zip(AB_COLUMNS, r, strict=False)) for r in self._db.execute(sql, args)]

    def close(self) -> None:
        self._db.close()
