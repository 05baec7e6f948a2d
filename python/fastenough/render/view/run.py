"""The command of a `fastenough run` and how it ended, apart, so that each
renderer quotes the command in its own way."""

from __future__ import annotations

import shlex

from fastenough.render.reproducibility_record import utc
from fastenough.render.units import fmt_ns
from fastenough.render.view.model import Code, RunView
from fastenough.report.model import Report


def run_view(report: Report) -> RunView | None:
    """('python eval.py', 'exited 0 after 15.9 s') for reports of `fastenough run`."""
    run = report.run
    if run is None:
        return None
    command = shlex.join(run.command)
    ending = f"was stopped by signal {run.signal}" if run.signal else f"exited {run.exit_status}"
    if run.wall_ns:
        ending += f" after {fmt_ns(run.wall_ns)}"
    meta = report.meta  # meta.json's record
    return RunView(command=Code(command), ending=ending, run_dir=run.run_dir,
                   host=str(meta.host or ""), started=utc(meta.start_wall_ns),
                   in_job=in_job_line(report))


def ranks_text(ranks: list[int]) -> str:
    """'0-3', '0, 2, 5', or the first eight and how many more."""
    ranks = sorted(ranks)
    if len(ranks) > 2 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}-{ranks[-1]}"
    shown = ", ".join(str(r) for r in ranks[:8])
    return shown + (f" and {len(ranks) - 8} more" if len(ranks) > 8 else "")


def in_job_line(report: Report) -> str | None:
    """What `run --analyze-in-job` did (run_details.in_job): merged from the
    ranks' own summaries, or which ranks sent none and why, and what the report
    was made from instead. None without the option."""
    details = report.run_details.in_job if report.run_details else None
    if details is None:
        return None
    ranks = list(details.ranks)
    missing = list(details.missing_ranks)
    parts = []
    if details.used:
        parts.append(f"merged from the summaries that rank{'s' if len(ranks) != 1 else ''} "
                     f"{ranks_text(ranks)} made of their own traces at exit")
    if missing:
        why = details.why_missing
        reasons = [f"rank {r}: {why[str(r)]}" for r in missing[:3] if str(r) in why]
        parts.append(f"no summary from rank{'s' if len(missing) > 1 else ''} "
                     f"{ranks_text(missing)}" + (f" ({'; '.join(reasons)})" if reasons else ""))
    if details.note:
        parts.append(str(details.note))
    return "in-job analysis: " + "; ".join(parts) if parts else None
