"""Repeatability (issue 37, item 10): a run's findings beside those of the
earlier runs of the same command that the history (.fastenough/runs.db in
the working directory) holds. Which findings came in every run, with the
spread of their savings, and which came and went: what `fastenough ab` says
of a protocol, said of the findings, so that a finding seen once is not
taken for one seen every time (timm's validate.py gave different findings in
two runs).

Read from the earlier runs' report.json files; nothing is measured again. A
finding is its code (and rank, in a job of several): its title and place
can change with the numbers it carries."""

from __future__ import annotations

import json
import os
from pathlib import Path

# This run and at most this many earlier runs of the same command (newest first).
EARLIER_RUNS = 4
# History rows read to find them (newest first).
ROWS_READ = 500
# A report.json larger than this is not read (a trace's report stays small).
REPORT_MAX_BYTES = 64 << 20


def _key(f: dict) -> tuple[str, int | None]:
    rank = f.get("rank")
    return (str(f.get("code", "?")), rank if isinstance(rank, int) and rank >= 0 else None)


def _by_key(report: dict) -> dict[tuple, dict]:
    """The findings of a report by key; of several with one key, the one with
    the largest saving per step."""
    out: dict[tuple, dict] = {}
    for f in report.get("findings") or []:
        if not isinstance(f, dict):
            continue
        k = _key(f)
        if k not in out or _per_step(f) > _per_step(out[k]):
            out[k] = f
    return out


def _per_step(f: dict) -> float:
    v = (f.get("saving") or {}).get("per_step_ns")
    return float(v) if isinstance(v, (int, float)) and v >= 0 else -1.0


def _share(f: dict) -> float | None:
    v = (f.get("saving") or {}).get("share_of_step")
    return float(v) if isinstance(v, (int, float)) and v >= 0 else None


def _spread(values: list[float]) -> dict | None:
    if not values:
        return None
    return {"min": min(values), "max": max(values), "runs": len(values)}


def summarize(report: dict, earlier: list[dict]) -> dict | None:
    """The repeatability section of `report` given the earlier runs' entries
    ({"id", "run_dir", "started_at", "report"}, newest first); None without
    earlier runs."""
    if not earlier:
        return None
    runs = [_by_key(report)] + [_by_key(e["report"]) for e in earlier]
    n = len(runs)
    order: list[tuple] = list(runs[0])  # this run's order (its ranking) first
    for r in runs[1:]:
        order += [k for k in r if k not in order]
    stable, varied = [], []
    for k in order:
        present = [r[k] for r in runs if k in r]
        entry: dict = {"code": k[0]}
        if k[1] is not None:
            entry["rank"] = k[1]
        latest = present[0]
        entry["verdict"] = str(latest.get("verdict", ""))
        if len(present) == n:
            steps = [_per_step(f) for f in present if _per_step(f) >= 0]
            shares = [s for s in (_share(f) for f in present) if s is not None]
            per_step = _spread(steps)
            if per_step is not None:
                entry["per_step_ns"] = per_step
            share = _spread(shares)
            if share is not None:
                entry["share_of_step"] = share
            stable.append(entry)
        else:
            entry["runs"] = len(present)
            entry["in_this_run"] = k in runs[0]
            varied.append(entry)
    return {
        "runs": n,
        "earlier": [{"id": e.get("id"), "run_dir": str(e.get("run_dir", "")),
                     "started_at": e.get("started_at")} for e in earlier],
        "stable": stable,
        "varied": varied,
    }


def _read_report(run_dir: str) -> dict | None:
    path = Path(run_dir) / "report.json"
    try:
        if not path.is_file() or path.stat().st_size > REPORT_MAX_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("findings"), list) else None


def earlier_runs(cwd: str | os.PathLike, command: str, run_dir: str | os.PathLike,
                 exit_status: int | None) -> list[dict]:
    """The earlier runs of `command` in cwd's history that ended the same way and
    whose report.json is there, newest first (at most EARLIER_RUNS)."""
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
    out = []
    for row in rows:
        if row.get("command") != command or row.get("exit_status") != exit_status:
            continue
        d = row.get("run_dir")
        if not d or os.path.realpath(d) == this:
            continue
        report = _read_report(d)
        if report is None:
            continue
        out.append({"id": row.get("id"), "run_dir": d, "started_at": row.get("started_at"),
                    "report": report})
        if len(out) >= EARLIER_RUNS:
            break
    return out


def note(report: dict, cwd: str | os.PathLike, command: str, run_dir: str | os.PathLike,
         exit_status: int | None) -> None:
    """Adds report["repeatability"] when the history holds earlier runs of the
    same command (in the same directory, ended the same way)."""
    section = summarize(report, earlier_runs(cwd, command, run_dir, exit_status))
    if section is not None:
        report["repeatability"] = section
