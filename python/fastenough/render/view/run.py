"""The command of a `fastenough run` and how it ended, apart, so that each
renderer quotes the command in its own way."""

from __future__ import annotations

import shlex

from fastenough.render.record import utc
from fastenough.render.units import fmt_ns
from fastenough.render.view.model import Code, RunView


def run_view(report: dict) -> RunView | None:
    """('python eval.py', 'exited 0 after 15.9 s') for reports of `fastenough run`."""
    run = report.get("run")
    if not run:
        return None
    command = run.get("command") or ""
    command = shlex.join(command) if isinstance(command, list) else str(command)
    if run.get("signal"):
        ending = f"was stopped by signal {run['signal']}"
    else:
        ending = f"exited {run.get('exit_status')}"
    if run.get("wall_ns"):
        ending += f" after {fmt_ns(run['wall_ns'])}"
    meta = report.get("meta") or {}
    return RunView(command=Code(command), ending=ending, run_dir=run.get("run_dir", ""),
                   host=str(meta.get("host") or ""), started=utc(meta.get("start_wall_ns")),
                   in_job=in_job_line(report))


def ranks_text(ranks: list[int]) -> str:
    """'0-3', '0, 2, 5', or the first eight and how many more."""
    ranks = sorted(ranks)
    if len(ranks) > 2 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    shown = ", ".join(str(r) for r in ranks[:8])
    return shown + (f" and {len(ranks) - 8} more" if len(ranks) > 8 else "")


def in_job_line(report: dict) -> str | None:
    """What `run --analyze-in-job` did (run_details.in_job): merged from the
    ranks' own summaries, or which ranks sent none and why, and what the report
    was made from instead. None without the option."""
    details = (report.get("run_details") or {}).get("in_job")
    if not isinstance(details, dict):
        return None
    ranks = [r for r in details.get("ranks") or [] if isinstance(r, int)]
    missing = [r for r in details.get("missing_ranks") or [] if isinstance(r, int)]
    parts = []
    if details.get("used"):
        parts.append(f"merged from the summaries that rank{'s' if len(ranks) != 1 else ''} "
                     f"{ranks_text(ranks)} made of their own traces at exit")
    if missing:
        why = details.get("why_missing") or {}
        reasons = [f"rank {r}: {why[str(r)]}" for r in missing[:3] if str(r) in why]
        parts.append(f"no summary from rank{'s' if len(missing) > 1 else ''} "
                     f"{ranks_text(missing)}" + (f" ({'; '.join(reasons)})" if reasons else ""))
    if details.get("note"):
        parts.append(str(details["note"]))
    return "in-job analysis: " + "; ".join(parts) if parts else None
