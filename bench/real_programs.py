"""The real programs of tests/real (the team's and the corpus's: every program
of tests/real/catalog.py), plain and under `fastenough run`, side by side: exit
status, stdout equal (after the program's timing masks), warnings equal (the
count of the program's own `Warning:` lines on stderr), peak RSS, wall time,
the measurement status (with its reasons) and the findings of each tool run
(issue 14's table).
Each program runs --rounds times per side in the order plain, tool, tool,
plain; the figures are medians; the findings are listed per tool run, so that
their repeatability shows.

Peak RSS is the workload's own (ru_maxrss from os.wait4 by a small launcher:
for torchrun, the largest of the launcher's and the ranks' peaks, not their sum);
the supervisor's memory is not in it. Wall time is the launcher's, so it
includes the agent's start-up and exit work but not the supervisor's report.
Each run gets a fresh working directory and the program's set-up first (not
timed).

    python bench/real_programs.py [--rounds 1] [--only NAME ...] [--json] [--keep DIR]
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
from catalog import ALL, warning_lines  # noqa: E402

LAUNCH = """
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(p.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{usage.ru_maxrss * 1024} {time.monotonic() - t0}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_side(program, tool: bool, tmp: Path, launch: Path, keep: Path | None = None) -> dict:
    work = Path(tempfile.mkdtemp(dir=tmp))
    if program.setup:
        program.setup(work)
    out = work.parent / (work.name + ".peak")
    py = program.interpreter()
    cmd = [py, str(launch), str(out), *program.command()]
    run_dir = work.parent / (work.name + ".run")
    if tool:
        cmd = [py, "-m", "fastenough", "run", "--no-history", "--quiet",
               "--run-dir", str(run_dir), "--", *cmd]
    env = dict(os.environ, **program.env)
    env.pop("FASTENOUGH_RUN_DIR", None)
    try:
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                           timeout=max(1200, program.timeout))
        rc, stdout, stderr = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, stdout, stderr = "timeout", str(e.stdout or ""), str(e.stderr or "")
    peak, wall = (out.read_text().split() if out.exists() else ("0", "0"))
    row = {"rc": rc, "stdout": program.normalised_stdout(stdout),
           "warnings": len(warning_lines(stderr)), "traceback": "Traceback" in stderr,
           "peak": int(peak), "wall": float(wall)}
    if tool:
        row["measurement"], row["findings"] = None, None
        if (run_dir / "report.json").exists():
            rep = json.loads((run_dir / "report.json").read_text())
            m = rep.get("measurement") or {}
            reasons = [r.get("code") for r in m.get("reasons") or []]
            row["measurement"] = m.get("status", "?") + (f" ({', '.join(reasons)})"
                                                         if reasons else "")
            row["findings"] = [f["code"] for f in rep.get("findings", [])]
            row["detail"] = [finding_line(f) for f in rep.get("findings", [])]
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
            n = len(list(keep.glob(f"{program.name}.*.json")))
            if (run_dir / "report.json").exists():
                (keep / f"{program.name}.{n + 1}.json").write_bytes(
                    (run_dir / "report.json").read_bytes())
    return row


def finding_line(f: dict) -> str:
    """code [verdict] at the first place, with its saving: what one judges a finding by."""
    where = ""
    for w in f.get("where") or []:
        if w.get("file"):
            where = f"{Path(w['file']).name}:{w.get('line') or w.get('def_line') or '?'}"
        elif w.get("op") or w.get("kernel"):
            where = (w.get("op") or w.get("kernel"))[:40]
        if where:
            break
    sv = f.get("saving") or {}
    share = sv.get("share_of_step")
    saving = "" if share is None else f" {'<=' if sv.get('upper_bound') else '~'}{share:.0%}"
    return f"{f['code']} [{f['verdict']}]{' @ ' + where if where else ''}{saving}"


def span(lo_hi: list[int]) -> str:
    return f"{lo_hi[0]}-{lo_hi[1]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", nargs="*", metavar="NAME")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="copy each tool run's report.json to DIR/NAME.N.json")
    args = ap.parse_args()
    unknown = set(args.only or ()) - {p.name for p in ALL}
    if unknown:
        ap.error(f"no such program: {', '.join(sorted(unknown))} "
                 f"(known: {', '.join(p.name for p in ALL)})")
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
                    sides[side].append(run_side(program, side == "tool", tmp, launch,
                                                args.keep))
            p, t = sides["plain"], sides["tool"]
            rows.append({
                "program": program.name,
                "rc_plain": sorted({str(x["rc"]) for x in p}),
                "rc_tool": sorted({str(x["rc"]) for x in t}),
                "stdout_equal": all(x["stdout"] == p[0]["stdout"] for x in p + t),
                "warnings_equal": all(x["warnings"] == p[0]["warnings"] for x in p + t),
                "traceback_tool": any(x["traceback"] for x in t),
                "peak_plain_mib": round(statistics.median(x["peak"] for x in p) / 2**20, 1),
                "peak_tool_mib": round(statistics.median(x["peak"] for x in t) / 2**20, 1),
                # The program's own spread: a peak that differs by tens of MiB between
                # identical plain runs (timm's benchmark.py: 940-1037 MiB over 12) is
                # judged against the plain range, not one median.
                "peak_plain_range_mib": [round(min(x["peak"] for x in p) / 2**20),
                                         round(max(x["peak"] for x in p) / 2**20)],
                "peak_tool_range_mib": [round(min(x["peak"] for x in t) / 2**20),
                                        round(max(x["peak"] for x in t) / 2**20)],
                "wall_plain_s": round(statistics.median(x["wall"] for x in p), 2),
                "wall_tool_s": round(statistics.median(x["wall"] for x in t), 2),
                "measurement": sorted({str(x.get("measurement")) for x in t}),
                "findings": [x.get("findings") for x in t],
                "detail": [x.get("detail") for x in t],
                "bench_s": round(time.monotonic() - t0, 1)})
            if not args.json:
                print(f"done {program.name} in {rows[-1]['bench_s']} s", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print("| program | exit plain/run | stdout equal | warnings equal | peak RSS plain -> run "
          "(MiB, median (min-max)) | wall plain -> run (s) | measurement | findings, run 1 "
          "| findings, run 2 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "skipped" in r:
            print(f"| {r['program']} | skipped: needs {', '.join(r['skipped'])} ||||||||")
            continue
        runs = [", ".join(f) if f else ("(no report)" if f is None else "-")
                for f in r["findings"]]
        runs += [""] * (2 - len(runs))
        tb = " (Traceback in a run)" if r["traceback_tool"] else ""
        print(f"| {r['program']} | {','.join(r['rc_plain'])}/{','.join(r['rc_tool'])}{tb} "
              f"| {r['stdout_equal']} | {r['warnings_equal']} "
              f"| {r['peak_plain_mib']} ({span(r['peak_plain_range_mib'])}) -> "
              f"{r['peak_tool_mib']} ({span(r['peak_tool_range_mib'])}) "
              f"| {r['wall_plain_s']} -> {r['wall_tool_s']} | {', '.join(r['measurement'])} "
              f"| {' | '.join(runs[:2]) if args.rounds == 1 else ' / '.join(runs)} |")


if __name__ == "__main__":
    main()
