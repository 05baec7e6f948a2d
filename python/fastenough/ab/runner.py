"""One run of one side: the command under `fastenough run`, in its own run directory.

The first run of each side runs the full agent (the checks, the profiler window
unless --no-trace): its report carries the findings, and its outputs are the
ones compared. Every later run is `fastenough run --timing-only`: the agent
counts and times steps and installs nothing whose cost per step depends on
what the program does. The checks hook module calls, so under them a B that
calls a head 8 times per batch where A called it once pays the agent more per
step than A (lm-eval's full-vocab-logits fix: about +1 ms a step in A, +2.2 ms
in B; bench/calibrate_savings.md), and B/A measured the program's gain plus
that difference."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from fastenough.ab.sides import Side
from fastenough.die_with_parent import ParentLink
from fastenough.errors import InternalError, MalformedReportError
from fastenough.report import Report, load
from fastenough.store.run_dir import read_run_file


@dataclass
class SideRun:
    side: str
    index: int  # 1-based within its side
    run_dir: Path
    exit_status: int | None
    report: Report | None  # report.json, None when fastenough wrote none
    timing_only: bool = False  # ran with `fastenough run --timing-only`

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and self.report is not None


def run_side(side: Side, index: int, ab_dir: Path, trace: bool,
             timing_only: bool = False) -> SideRun:
    """Runs the side once (timing_only: with `fastenough run --timing-only`, no checks
    and no profiler window). The program's stdout and stderr go to files beside its
    run directory (A1.stdout.txt, A1.stderr.txt) so that the A/B's own output stays
    readable."""
    run_dir = ab_dir / f"{side.name}{index}"
    cmd = [sys.executable, "-m", "fastenough", "run", "--quiet", "--no-history",
           "--run-dir", str(run_dir)]
    if timing_only:
        cmd.append("--timing-only")
    elif not trace:
        cmd.append("--no-trace")
    cmd += ["--", *side.cmd]
    env = dict(os.environ)
    env.update(side.env)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    out_path = ab_dir / f"{side.name}{index}.stdout.txt"
    err_path = ab_dir / f"{side.name}{index}.stderr.txt"
    # The run dies with this `ab` (and so with an MCP server that started it): it
    # gets one SIGTERM, stops its program and writes what it measured.
    link = ParentLink()
    env.update(link.env)
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, pass_fds=link.pass_fds)
            link.started()
            proc.wait()
    finally:
        link.close()
    doc = None
    with contextlib.suppress(OSError, ValueError):  # no report, or no file (a FIFO)
        doc = json.loads(read_run_file(run_dir / "report.json"))
    report = None
    if doc is not None:
        try:
            report = load(doc)
        except MalformedReportError as e:  # `fastenough run` of this version wrote it
            raise InternalError(f"{run_dir / 'report.json'}: {e}") from None
    status = proc.returncode
    if report is not None and report.run is not None:
        status = report.run.exit_status
    return SideRun(side.name, index, run_dir, status, report, timing_only)
