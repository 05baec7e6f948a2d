"""The real programs of tests/real, plain and under `fastenough run`, side by
side: exit status, stdout equal, peak RSS, wall time, and the findings (issue 14's
table). Each program runs --rounds times per side in the order plain, tool,
tool, plain; the figures are medians.

Peak RSS is the workload's own (ru_maxrss from os.wait4 by a small launcher:
for torchrun, the largest of the launcher's and the ranks' peaks, not their sum);
the supervisor's memory is not in it. Wall time is the launcher's, so it
includes the agent's start-up and exit work but not the supervisor's report.

    python bench/real_programs.py [--rounds 1] [--only NAME ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "real"))
from catalog import ALL  # noqa: E402

LAUNCH = """
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(p.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{usage.ru_maxrss * 1024} {time.monotonic() - t0}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_side(program, tool: bool, tmp: Path, launch: Path) -> dict:
    work = Path(tempfile.mkdtemp(dir=tmp))
    out = work / "peak"
    cmd = [sys.executable, str(launch), str(out), *program.command()]
    run_dir = work / "run"
    if tool:
        cmd = [sys.executable, "-m", "fastenough", "run", "--no-history", "--quiet",
               "--run-dir", str(run_dir), "--", *cmd]
    r = subprocess.run(cmd, cwd=work, env=dict(os.environ, **program.env),
                       capture_output=True, text=True, timeout=1200)
    peak, wall = (out.read_text().split() if out.exists() else ("0", "0"))
    row = {"rc": r.returncode, "stdout": r.stdout, "peak": int(peak), "wall": float(wall)}
    if tool and (run_dir / "report.json").exists():
        rep = json.loads((run_dir / "report.json").read_text())
        row["measurement"] = rep.get("measurement", {}).get("status")
        row["findings"] = [f["code"] for f in rep.get("findings", [])]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        launch = tmp / "launch.py"
        launch.write_text(LAUNCH)
        for program in ALL:
            if args.only and program.name not in args.only:
                continue
            if program.missing():
                rows.append({"program": program.name, "skipped": program.missing()})
                continue
            t0 = time.monotonic()
            sides: dict[str, list[dict]] = {"plain": [], "tool": []}
            for _ in range(args.rounds):
                for side in ("plain", "tool", "tool", "plain"):
                    sides[side].append(run_side(program, side == "tool", tmp, launch))
            p, t = sides["plain"], sides["tool"]
            rows.append({
                "program": program.name,
                "rc_plain": sorted({x["rc"] for x in p}), "rc_tool": sorted({x["rc"] for x in t}),
                "stdout_equal": all(x["stdout"] == p[0]["stdout"] for x in p + t),
                "peak_plain_mib": round(statistics.median(x["peak"] for x in p) / 2**20, 1),
                "peak_tool_mib": round(statistics.median(x["peak"] for x in t) / 2**20, 1),
                "wall_plain_s": round(statistics.median(x["wall"] for x in p), 2),
                "wall_tool_s": round(statistics.median(x["wall"] for x in t), 2),
                "measurement": t[0].get("measurement"), "findings": t[0].get("findings"),
                "bench_s": round(time.monotonic() - t0, 1)})
            if not args.json:
                print(f"done {program.name}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print("| program | exit plain/run | stdout equal | peak RSS plain -> run (MiB) "
          "| wall plain -> run (s) | measurement | findings |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "skipped" in r:
            print(f"| {r['program']} | skipped: needs {', '.join(r['skipped'])} ||||||")
            continue
        print(f"| {r['program']} | {r['rc_plain']}/{r['rc_tool']} | {r['stdout_equal']} "
              f"| {r['peak_plain_mib']} -> {r['peak_tool_mib']} "
              f"| {r['wall_plain_s']} -> {r['wall_tool_s']} | {r['measurement']} "
              f"| {', '.join(r['findings'] or [])} |")


if __name__ == "__main__":
    main()
