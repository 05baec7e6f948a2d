"""`fastenough merge` and `fastenough history` over input that is not what
they read (issue 34, item 11): a summary nested 100k levels deep, a FIFO
among the summaries, a runs.db that is no SQLite database or holds values
of other types: exit 2 and one line naming the file, never exit 3 with a
traceback, never a hang, never NaN/Infinity in --json."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from fastenough.cli.main import main

DEEP = ('{"schema": "fastenough.rank-summary/1", "rank": 0, "input_index": 0, "x": '
        + "[" * 100_000 + "]" * 100_000 + "}")


def _cli(capsys, *argv) -> tuple[int, str, str]:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def _one_line_error(rc: int, err: str, *needles: str) -> None:
    assert rc == 2, err
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [x for x in err.strip().splitlines() if not x.startswith(("usage:", " "))]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], err


def _strict_json(text: str):
    def refuse(name):
        raise ValueError(f"{name} in the output: not JSON")
    return json.loads(text, parse_constant=refuse)


def test_merge_of_a_summary_nested_100k_deep(tmp_path, capsys):
    path = tmp_path / "rank0.summary.json"
    path.write_text(DEEP)
    rc, out, err = _cli(capsys, "merge", path)  # read by the core
    _one_line_error(rc, err, str(path), "too deep")
    rc, out, err = _cli(capsys, "merge", tmp_path)  # a directory: its order read here
    _one_line_error(rc, err, str(path), "nested more than 64 levels deep")
    assert out == ""


@pytest.mark.parametrize("text, message", [
    ('{"rank": 0, "input_index": NaN}', "NaN is not a JSON number"),
    (b'{"rank": 0, "input_index": 0, "x": "\xff"}', "not UTF-8"),
    ('{"rank": 0, "input_index": 1e999}', "beyond the range"),
    ("[[[", "not valid JSON"),
])
def test_merge_of_a_directory_with_a_damaged_summary(tmp_path, capsys, text, message):
    path = tmp_path / "rank0.summary.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    rc, _, err = _cli(capsys, "merge", tmp_path)
    _one_line_error(rc, err, str(path), message)


def test_merge_of_a_directory_holding_a_fifo_does_not_wait(tmp_path):
    from conftest import run_cli

    os.mkfifo(tmp_path / "rank0.summary.json")
    r = run_cli("merge", tmp_path, timeout=120)  # no writer: open() would block for ever
    _one_line_error(r.returncode, r.stderr, "rank0.summary.json", "not a regular file")


GARBAGE = b"SQLite format 2\x00" + b"this is not a database " * 200


@pytest.mark.parametrize("argv", [[], ["--json"], ["--ab"], ["--ab", "--json"]])
def test_history_over_a_garbage_runs_db(tmp_path, capsys, monkeypatch, argv):
    (tmp_path / ".fastenough").mkdir()
    db = tmp_path / ".fastenough" / "runs.db"
    db.write_bytes(GARBAGE)
    monkeypatch.chdir(tmp_path)
    rc, out, err = _cli(capsys, "history", *argv)
    _one_line_error(rc, err, str(db), "not a readable fastenough history database")
    assert out == "" and db.read_bytes() == GARBAGE
    rc, out, err = _cli(capsys, "history", "--db", db, *argv)
    _one_line_error(rc, err, "runs.db: not a readable fastenough history database")
    # A run number is looked up in the same file.
    rc, out, err = _cli(capsys, "decide", "3", "--runs", "1")
    _one_line_error(rc, err, str(db), "not a readable fastenough history database")


def test_history_db_that_is_no_file(tmp_path, capsys):
    os.mkfifo(tmp_path / "fifo.db")
    rc, _, err = _cli(capsys, "history", "--db", tmp_path / "fifo.db")
    _one_line_error(rc, err, "fifo.db: not a regular file (a FIFO or pipe)")
    rc, _, err = _cli(capsys, "history", "--db", tmp_path)
    _one_line_error(rc, err, "not a regular file (a directory)")


def _foreign_db(path) -> None:
    """A runs.db of another shape: a runs table with some columns only and
    values of the wrong types, no abs table."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at, command, exit_status, "
               "wall_s, items_per_s, run_dir)")
    db.execute("INSERT INTO runs VALUES (1, 12345, X'00ff', 'crashed', 'fast', 9e999, 7)")
    db.execute("INSERT INTO runs VALUES (2, '2026-01-02T03:04:05Z', 'python a.py', 0, -9e999, "
               "1.5, '/tmp/run')")
    db.commit()
    db.close()


def test_history_reads_a_foreign_db_without_changing_it(tmp_path, capsys):
    path = tmp_path / "runs.db"
    _foreign_db(path)
    before = path.read_bytes()
    rc, out, err = _cli(capsys, "history", "--db", path, "--json")
    assert rc == 0, err
    rows = _strict_json(out)
    assert [r["id"] for r in rows] == [2, 1]
    old = rows[1]
    assert old["wall_s"] is None and old["items_per_s"] is None  # 'fast', Infinity
    assert old["exit_status"] is None and old["started_at"] == "12345"
    assert old["measurement"] is None and old["run_dir"] == "7"
    assert rows[0]["wall_s"] is None and rows[0]["items_per_s"] == 1.5
    rc, out, err = _cli(capsys, "history", "--db", path)
    assert rc == 0 and "python a.py" in out, err
    rc, out, err = _cli(capsys, "history", "--db", path, "--ab", "--json")
    assert rc == 0 and _strict_json(out) == [], err
    assert path.read_bytes() == before  # read-only: no table or column added


@pytest.mark.parametrize("limit, message", [
    ("1" + "0" * 30, "argument --limit: 10000000... (31 digits): out of range"),
    ("0", "argument --limit: '0': out of range"),
    ("nan", "argument --limit: 'nan': not a whole number"),
])
def test_history_limit_out_of_range(tmp_path, capsys, limit, message):
    path = tmp_path / "runs.db"
    _foreign_db(path)
    rc, _, err = _cli(capsys, "history", "--db", path, "--limit", limit)
    _one_line_error(rc, err, message)


@pytest.mark.parametrize("ref", ["9" * 30, "9" * 5000, "#99999999999999999999"])
def test_a_run_number_beyond_any_row(tmp_path, capsys, monkeypatch, ref):
    (tmp_path / ".fastenough").mkdir()
    _foreign_db(tmp_path / ".fastenough" / "runs.db")
    monkeypatch.chdir(tmp_path)
    rc, _, err = _cli(capsys, "decide", ref, "--runs", "1")
    _one_line_error(rc, err, "no such path, and no run #")
