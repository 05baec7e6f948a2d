"""After a `run --analyze-in-job` job: merge the ranks' own summaries
(rank-summaries/, written by agent/in_job.py) when every trace has one, else
analyse the traces that exist, and say in the report which ranks sent none
(run_details.in_job, docs/run-directory.md)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from fastenough.agent.in_job import MANIFEST, SUMMARY_DIR, summary_name
from fastenough.store.run_dir import MAX_AGENT_FILE_BYTES, read_run_file

if TYPE_CHECKING:
    from fastenough.report.model import Report

_RANK = re.compile(r"^rank(\d+)\b")


@dataclass
class Choice:
    summaries: list[str] | None  # merge these; None: analyse the traces
    details: dict = field(default_factory=dict)  # run_details.in_job


def _manifest(directory: Path) -> dict:
    try:
        doc = json.loads(read_run_file(directory / MANIFEST, MAX_AGENT_FILE_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def choose(run_dir: Path, traces: list[Path]) -> Choice:
    directory = run_dir / SUMMARY_DIR
    manifest = _manifest(directory)
    why: dict[str, str] = {}
    missing_doc = manifest.get("missing")
    if isinstance(missing_doc, dict):
        why = {str(k): str(v) for k, v in missing_doc.items()}
    wanted = [(t, directory / summary_name(t.name)) for t in traces]
    unsent = [t for t, s in wanted if not s.is_file()]
    for t in unsent:
        m = _RANK.match(t.name)
        key = m.group(1) if m else t.name
        why.setdefault(key, "its trace has no summary")
    used = bool(wanted) and not unsent
    received = manifest.get("received")
    details = {
        "used": used,
        "ranks": sorted(received) if isinstance(received, list) else
        sorted(int(m.group(1)) for t, s in wanted if s.is_file() and (m := _RANK.match(t.name))),
        "missing_ranks": sorted(int(k) for k in why if k.isdigit()),
        "why_missing": why,
    }
    if not used:
        details["note"] = ("the report was made from the traces after the job"
                           if traces else "no trace was recorded, so there was nothing to merge")
    return Choice([str(s) for _, s in wanted] if used else None, details)


def stderr_note(report: Report | None) -> str | None:
    """The line `fastenough run` prints when the in-job analysis was not whole
    (the rendered reports say it always: render/view/run.py). `report`: the typed one."""
    from fastenough.render.view.run import in_job_line

    details = report.run_details.in_job if report and report.run_details else None
    if details is None or (details.used and not details.missing_ranks):
        return None
    return in_job_line(report)
