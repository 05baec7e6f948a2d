"""The run history database and `fastenough history`."""

from __future__ import annotations

import json
import sqlite3

from conftest import run_cli
from report_docs import report_doc

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
    (body,) = [line for line in lines if "train-mode-in-eval" in line]
    assert "complete" in body
    assert "python3.11 word_lang" in body  # at least 20 characters of the command


def test_history_at_80_columns_shows_what_runs_are_compared_by(tmp_path):
    """Issue 24: at 80 columns only steps/s was shown (a fixed run with 8x
    larger batches looked 3x slower), the wall time only at 200 columns, and
    nothing said how to open a run."""
    db = HistoryDB(tmp_path / ".fastenough" / "runs.db")
    db.add_run(row(1, command="/usr/bin/python3.11 -m fastenough.demo.workload --items 64",
                   wall_s=51.68, steady_steps_per_s=8.4, items_per_s=8.4,
                   top_finding="padding-waste", measurement="complete",
                   run_dir=str(tmp_path / ".fastenough" / "runs" / "20260101T000000Z-aaaaaa")))
    db.add_run(row(2, command="/usr/bin/python3.11 -m fastenough.demo.workload --items 64 "
                              "--fixed", wall_s=20.5, steady_steps_per_s=2.9, items_per_s=23.2,
                   measurement="partial"))
    db.add_run(row(3, command="python crash.py", exit_status=1, wall_s=0.4,
                   steady_steps_per_s=None, items_per_s=None))
    db.close()
    r = run_cli("history", cwd=tmp_path, env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.rstrip("\n").splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    by_run = {line.split()[0]: line for line in lines if line.strip()[:1].isdigit()}
    assert "51.7 s" in by_run["1"] and "8.4 items/s" in by_run["1"]
    assert "23.2 items/s" in by_run["2"] and "20.5 s" in by_run["2"] and "partial" in by_run["2"]
    assert "exit 1" in by_run["3"]
    assert "steps/s" not in r.stdout  # every run with items is compared by items
    assert "`fastenough report N`" in r.stdout
    # Wide: the start time and the run directory come in.
    wide = run_cli("history", cwd=tmp_path, env={"COLUMNS": "200"}).stdout
    assert "started (UTC)" in wide and ".fastenough/runs/20260101T000000Z-aaaaaa" in wide


def test_a_run_is_opened_by_its_history_number(tmp_path):
    run_dir = tmp_path / ".fastenough" / "runs" / "20260101T000000Z-aaaaaa"
    run_dir.mkdir(parents=True)
    (run_dir / "report.json").write_text(json.dumps(
        report_doc(steps={"count": 10, "steady_median_ns": 1e6})))
    db = HistoryDB(tmp_path / ".fastenough" / "runs.db")
    db.add_run(row(1, run_dir=str(run_dir)))
    db.close()
    r = run_cli("decide", "1", "--runs", "3", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["run_dir"] == str(run_dir)
    r = run_cli("decide", "#1", "--runs", "3", "--json", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["run_dir"] == str(run_dir)
    r = run_cli("decide", "20260101T000000Z-aaaaaa", "--runs", "3", "--json", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["run_dir"] == str(run_dir)
    r = run_cli("decide", "7", "--runs", "3", cwd=tmp_path)
    assert r.returncode != 0 and "no run #7" in r.stderr and "Traceback" not in r.stderr


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


def test_history_ab_never_breaks_a_word(tmp_path):
    db = HistoryDB(tmp_path / ".fastenough" / "runs.db")
    db.add_ab({"started_at": "2026-01-04T00:00:00Z", "ab_dir": str(tmp_path / "ab"),
               "command_a": "python -m fastenough.demo.workload --items 64",
               "command_b": "python -m fastenough.demo.workload --items 64 --fixed",
               "runs": 8, "unit": "items/s", "ratio": 5.56, "low": 4.21, "high": 7.33,
               "speed": "B faster", "verdict": "B faster, with a protocol change",
               "outputs": "within-tolerance"})
    db.close()
    r = run_cli("history", "--ab", cwd=tmp_path, env={"COLUMNS": "60"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines), lines
    words = r.stdout.split()
    for word in ("within-tolerance", "protocol", "5.560", "(4.210", "7.330)"):
        assert word in words, (word, lines)
    assert any(line.strip().startswith("A: python -m fastenough.demo") for line in lines)
