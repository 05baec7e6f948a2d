"""One run of one side: the command under `fastenough run`, in its own run directory."""

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

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and self.report is not None


def run_side(side: Side, index: int, ab_dir: Path, trace: bool) -> SideRun:
    """Runs the side once. The program's stdout and stderr go to files in its run
    directory (stdout.txt, stderr.txt) so that the A/B's own output stays readable."""
    run_dir = ab_dir / f"{side.name}{index}"
    cmd = [sys.executable, "-m", "fastenough", "run", "--quiet", "--no-history",
           "--run-dir", str(run_dir)]
    if not trace:
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
    return SideRun(side.name, index, run_dir, status, report)
