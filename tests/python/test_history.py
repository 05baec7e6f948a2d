"""The run history database and `fastenough history`."""

from __future__ import annotations

import json
import sqlite3

from conftest import run_cli

from fastenough.store.history import COLUMNS, HistoryDB


def row(i: int, **kw) -> dict:
    base = {"started_at": f"2026-01-0{i}T00:00:00Z", "command": f"python run{i}.py",
            "exit_status": 0, "wall_s": 1.5 * i, "steady_steps_per_s": 10.0 * i,
            "items_per_s": None, "top_finding": None, "run_dir": f"/runs/{i}"}
    base.update(kw)
    return base


def test_add_and_list_newest_first(tmp_path):
    db = HistoryDB(tmp_path / "sub" / "runs.db")
    ids = [db.add_run(row(i)) for i in (1, 2, 3)]
    assert ids == [1, 2, 3]
    rows = db.list_runs()
    assert [r["id"] for r in rows] == [3, 2, 1]
    assert rows[0]["steady_steps_per_s"] == 30.0 and rows[0]["items_per_s"] is None
    assert [r["id"] for r in db.list_runs(limit=2)] == [3, 2]
    db.close()
    cols = [c[1] for c in sqlite3.connect(tmp_path / "sub" / "runs.db").execute(
        "PRAGMA table_info(runs)")]
    assert tuple(cols) == COLUMNS


def test_history_cli(tmp_path):
    r = run_cli("history", cwd=tmp_path)
    assert r.returncode == 0 and "no runs recorded" in r.stdout
    assert json.loads(run_cli("history", "--json", cwd=tmp_path).stdout) == []
    db = HistoryDB(tmp_path / ".fastenough" / "runs.db")
    db.add_run(row(1, top_finding="sync-in-loop"))
    db.add_run(row(2, exit_status=130))
    db.close()
    r = run_cli("history", "--limit", "1", "--json", cwd=tmp_path)
    rows = json.loads(r.stdout)
    assert len(rows) == 1 and rows[0]["exit_status"] == 130
    r = run_cli("history", cwd=tmp_path)
    assert r.returncode == 0
    assert "sync-in-loop" in r.stdout and "python run2.py" in r.stdout
    r = run_cli("history", "--limit", "0", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_run_adds_a_row(tmp_path):
    run_cli("run", "--quiet", "--", "true", cwd=tmp_path)
    run_cli("run", "--quiet", "--", "false", cwd=tmp_path)
    rows = json.loads(run_cli("history", "--json", cwd=tmp_path).stdout)
    assert [r["command"] for r in rows] == ["false", "true"]
    assert [r["exit_status"] for r in rows] == [1, 0]
    assert all(r["wall_s"] is not None and r["wall_s"] >= 0 for r in rows)


def test_history_fits_an_80_column_terminal(tmp_path):
    """A long command used to be cut to "pyth" at 80 columns (issue 14)."""
    db = HistoryDB(tmp_path / ".fastenough" / "runs.db")
    db.add_run(row(1, command="/usr/bin/python3.11 word_language_model/main.py --epochs 1",
                   top_finding="train-mode-in-eval", measurement="complete",
                   items_per_s=1234.5))
    db.close()
    r = run_cli("history", cwd=tmp_path, env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.rstrip("\n").splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    body = lines[-1]
    assert "train-mode-in-eval" in body and "complete" in body
    assert "python3.11 word_language_" in body  # at least 24 characters of the command


def test_history_db_of_an_older_release_gains_the_new_column(tmp_path):
    path = tmp_path / "runs.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT, "
                "command TEXT NOT NULL, exit_status INTEGER, wall_s REAL, "
                "steady_steps_per_s REAL, items_per_s REAL, top_finding TEXT, "
                "run_dir TEXT NOT NULL)")
    con.execute("INSERT INTO runs (command, run_dir) VALUES ('python old.py', '/r')")
    con.commit()
    con.close()
    db = HistoryDB(path)
    db.add_run(row(1, measurement="blind"))
    assert [r["measurement"] for r in db.list_runs()] == ["blind", None]
    db.close()
