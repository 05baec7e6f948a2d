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
                   host=str(meta.get("host") or ""), started=utc(meta.get("start_wall_ns")))
