"""`fastenough decide RUN_DIR`: is any fix worth its cost over the remaining runs?

The arithmetic lives in the C++ core (cpp/fastenough/decide/roi.cc); this module
reads the run's figures and the user's plan, and renders the answer.

JSON schema `fastenough.decide/1`:
  {"schema": "fastenough.decide/1", "run_dir": str, "plan": {"remaining_runs",
   "wait_hour_value"}, "figures": {"steady_step_ns", "steps_per_run", "load_ns",
   "prepare_ns", "compile_ns"}, "run_ns", "one_time_ns", "any_pays": bool,
   "fixes": [{"code", "saving_per_run_ns", "hours_saved", "cost_hours" (null when
   not given), "budget_hours", "share_of_run", "verdict": "do-it" |
   "within-budget" | "not-worth-it", "arithmetic"}], "unpriced": [{"code", "title"}]
   (avoidable findings without an estimated saving: measure them with `ab`),
   "fix_first": [{"code", "title"}] (open findings that change results, catalog:
   changes_results; not priced), "recommendation": "fix-first" | "fix" |
   "measure" | "freeze", "reopen": [str], "freeze": str (only when frozen)}
  figures also holds "startup_ns" and "wall_ns" (the measured run); the output
  "other_ns" (the run's time in no step and no named phase).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from fastenough.errors import InputNotFoundError, UsageError
from fastenough.inputs.decide_plan import (
    MAX_RUNS,
    MAX_WAIT_VALUE,
    load_report,
    parse_fix,
    parse_plan,
    read_plan,
)
from fastenough.inputs.numbers import check_whole, finite_float, whole_number
from fastenough.report.model import Finding, Report

HELP = "is fixing a finding worth its cost over the remaining runs?"

EPILOG = """\
examples:
  fastenough decide .fastenough/runs/RUN --runs 50
  fastenough decide RUN --runs 50 --fix sync-in-loop=2,1,0.5 \\
      --fix small-kernels=8,4,2
  fastenough decide RUN --plan plan.toml --json
  fastenough decide RUN --reopen

--fix CODE=DEV,VERIFY,MAINT gives a fix's cost in hours of development,
verification and maintenance. A finding without --fix gets the verdict
"within a budget of N hours": N is what it saves over the remaining runs.

plan.toml:
  runs = 50
  wait_hour_value = 1.0      # an hour of waiting, in hours of work (default 1)
  [fix.sync-in-loop]
  dev = 2
  verify = 1
  maint = 0.5

Saving per run = saving bound per step x steps of a run; one-time costs (load,
preparation, first compile/warmup) are part of the run but no per-step fix
shrinks them. The recommendation, the first that applies: fix first a finding
that changes results (train-mode-in-eval); make a fix that pays; measure with
`fastenough ab` a finding that has no saving estimate; else freeze, and
freeze.json is written into RUN_DIR.
"""

PREPARE_PHASES = ("prepare", "preparation", "calibrate")
COMPILE_PHASES = ("compile", "warmup")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("decide", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run directory written by `fastenough run`")
    p.add_argument("--runs", type=whole_number(0, MAX_RUNS), default=None, metavar="N",
                   help="remaining runs of this workload (asked on a terminal when missing)")
    p.add_argument("--fix", action="append", default=[], metavar="CODE=DEV,VERIFY,MAINT",
                   help="hours of development, verification, maintenance of a fix (repeatable)")
    p.add_argument("--wait-value", type=finite_float(0, MAX_WAIT_VALUE, lo_open=True),
                   default=None, metavar="X",
                   help="an hour of waiting is worth X hours of work (default 1)")
    p.add_argument("--plan", metavar="TOML", default=None, help="plan file (see below)")
    p.add_argument("--json", action="store_true", help="print fastenough.decide/1 JSON")
    p.add_argument("--reopen", action="store_true",
                   help="only say when the question is worth asking again")
    p.set_defaults(func=run)


def _load_report(run_dir: Path) -> Report:
    path = run_dir / "report.json"
    if not path.is_file():
        raise InputNotFoundError(f"{path}: not found (is {run_dir} a run directory?)")
    return load_report(str(path))


def figures(report: Report) -> dict:
    """The run's measured step time and one-time costs, from report.json."""
    steps = report.steps
    step_ns = steps.steady_median_ns or steps.median_ns or 0.0
    count = steps.count
    phase_ns: dict[str, float] = {}
    for ph in report.phases:
        if ph.rank == 0 and ph.host_ns is not None:
            phase_ns[ph.name] = phase_ns.get(ph.name, 0.0) + float(ph.host_ns)
    return {
        "steady_step_ns": float(step_ns),
        "steps_per_run": int(count),
        "load_ns": phase_ns.get("load", 0.0),
        "prepare_ns": sum(phase_ns.get(n, 0.0) for n in PREPARE_PHASES),
        "compile_ns": sum(phase_ns.get(n, 0.0) for n in COMPILE_PHASES),
        "startup_ns": phase_ns.get("startup", 0.0),
        # The whole run as the supervisor measured it: start-up, the exit and
        # whatever ran outside the steps are part of a run (issue 24).
        "wall_ns": float((report.run.wall_ns if report.run is not None else None) or 0.0),
    }


def _plan(args: argparse.Namespace) -> tuple[int, float, dict]:
    runs, wait, costs = None, 1.0, {}
    if args.plan:
        plan_runs, plan_wait, costs = parse_plan(read_plan(args.plan), args.plan)
        runs = plan_runs
        wait = wait if plan_wait is None else plan_wait
    if args.runs is not None:
        runs = args.runs
    if args.wait_value is not None:
        wait = args.wait_value
    for text in args.fix:
        code, c = parse_fix(text)
        costs[code] = c
    if runs is None and not args.reopen:
        if sys.stdin.isatty() and sys.stdout.isatty():
            answer = input("How many more runs of this workload will you do? ")
            runs = check_whole(answer.strip(), "runs", 0, MAX_RUNS)
        else:
            raise UsageError("how many runs remain? pass --runs N (or runs = N in --plan)")
    return runs or 0, wait, costs


def reopen_conditions(report: Report, fig: dict) -> list[str]:
    """When the question is worth asking again, from this run's figures."""
    steps = report.steps
    median = fig["steady_step_ns"]
    p90 = steps.steady_p90_ns or steps.p90_ns or median
    p10 = steps.steady_p10_ns or steps.p10_ns or median
    band = max(p90 - median, median - p10, 0.05 * median)
    out = []
    if median > 0:
        out.append(f"steady step time above {(median + band) / 1e6:.1f} ms "
                   f"(median {median / 1e6:.1f} ms + noise band {band / 1e6:.1f} ms, p10-p90)")
    one_time = fig["load_ns"] + fig["prepare_ns"] + fig["compile_ns"]
    if one_time > 0:
        out.append(f"load + preparation + first compile above {1.2 * one_time / 1e9:.1f} s "
                   f"(now {one_time / 1e9:.1f} s, +20%)")
    out.append("an out-of-memory error, or device memory peak near capacity")
    out.append("a new model, input size or execution path that is slow for your wait")
    out.append("a cheap, clear gain appears (a new finding with a saving above its cost)")
    return out


def priced_fixes(findings: tuple[Finding, ...], costs: dict) -> tuple[list[dict], list[dict]]:
    """One fix per finding code, its saving the sum of that code's findings'
    (two sync-in-loop findings at two lines are one kind of fix; the core caps
    the sum at the step; a `bounded` finding says what bounds the step and is
    no fix); and the avoidable findings that carry no estimated saving,
    which are named, not dropped (autograd-in-eval: a saving the trace did not
    price)."""
    fixes: dict[str, dict] = {}
    unpriced: list[dict] = []
    for f in findings:
        per_step = f.saving.per_step_ns
        if f.verdict == "bounded":
            continue  # what bounds the step once the avoidable is gone: no fix to price
        if per_step is None:
            if f.verdict == "avoidable":
                unpriced.append({"code": f.code, "title": f.title})
            continue
        fix = fixes.setdefault(f.code, {"code": f.code, "saving_per_step_ns": 0.0,
                                        "findings": 0, **costs.get(f.code, {})})
        fix["saving_per_step_ns"] += float(per_step)
        fix["findings"] += 1
    priced = {f["code"] for f in fixes.values()}
    unpriced = [u for u in unpriced if u["code"] not in priced]
    return list(fixes.values()), unpriced


def environment_versions(run_dir: Path) -> dict:
    """What reproducing the frozen path needs: Python, torch, CUDA and the
    libraries the program imported, from its agents' records (the loop's
    process first). The driver version is not recorded yet."""
    records = []
    for path in sorted((run_dir / "agent").glob("*.json")):
        try:
            records.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    records.sort(key=lambda a: a.get("role") not in ("main", "rank"))
    out: dict = {}
    for a in records:
        for key in ("python", "torch", "cuda"):
            if a.get(key) and key not in out:
                out[key] = a[key]
        for name, version in (a.get("libraries") or {}).items():
            out.setdefault("libraries", {}).setdefault(name, version)
    return out


def _freeze(run_dir: Path, report: Report, fig: dict, plan: dict) -> Path:
    from fastenough.report import as_json

    meta = report.meta

    def kept(*keys: str) -> dict:
        # The keys the run's meta had, as it wrote them (typed: meta_record_fields.h).
        return {k: as_json(getattr(meta, k)) for k in keys if k in meta.key_order}

    record = {
        "schema": "fastenough.freeze/1",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "tool_version": report.tool_version,
        "versions": kept("fastenough_version", "supervisor_python", "git", "host"),
        "environment": environment_versions(run_dir),
        "command": as_json(meta.command),
        "cwd": meta.cwd,
        "configuration": kept("agent_opts", "world_size", "backend", "device_properties"),
        "figures": fig,
        "steps": report.steps.to_json(),
        "plan": plan,
    }
    path = run_dir / "freeze.json"
    path.write_text(json.dumps(record, indent=2, allow_nan=False) + "\n")
    return path


def run(args: argparse.Namespace) -> int:
    from fastenough.inputs.run_ref import resolve_run_ref

    run_dir = Path(resolve_run_ref(args.run_dir))
    report = _load_report(run_dir)
    fig = figures(report)
    reopen = reopen_conditions(report, fig)
    if args.reopen and not args.json:
        frozen = run_dir / "freeze.json"
        if not frozen.is_file():
            # Nothing was frozen: a fix may well pay, and "ask again when"
            # would answer a question nobody closed (issue 24).
            sys.stdout.write(f"Nothing was frozen in {run_dir}: decide first "
                             f"(fastenough decide {run_dir} --runs N); these conditions "
                             "apply once no fix pays.\n")
        sys.stdout.write("Worth asking again when:\n" + "".join(f"  - {r}\n" for r in reopen))
        return 0
    runs, wait, costs = _plan(args)
    fixes, unpriced = priced_fixes(report.findings, costs)
    for code in costs:
        if code not in {x["code"] for x in fixes}:
            raise UsageError(f"--fix {code}: no finding with that code and a saving in {run_dir}")
    from fastenough import _core

    plan = {"remaining_runs": runs, "wait_hour_value": wait}
    found = report.findings
    # Every open finding (a `bounded` one is no fix): the core reads from the
    # catalog which change results, and those come before any pricing.
    open_codes = [f.code for f in found if f.verdict != "bounded"]
    d = _core.decide(fig, plan, fixes, open_codes, [u["code"] for u in unpriced])
    titles: dict[str, str] = {}
    for f in found:
        titles.setdefault(f.code, f.title)
    measure = set(d.pop("measure"))
    out = {"schema": "fastenough.decide/1", "run_dir": str(run_dir), "plan": plan,
           "figures": fig, **d,
           "fix_first": [{"code": c, "title": titles.get(c, "")} for c in d["fix_first"]],
           "unpriced": [u for u in unpriced if u["code"] in measure], "reopen": reopen}
    freeze = None
    if d["recommendation"] == "freeze":
        freeze = _freeze(run_dir, report, fig, plan)
        out["freeze"] = str(freeze)
    if args.json:
        json.dump(out, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    _print(out, freeze)
    return 0


_VERDICT_TEXT = {"do-it": "do it", "not-worth-it": "not worth it"}


def _print(out: dict, freeze: Path | None) -> None:
    from rich.console import Console
    from rich.table import Table

    from fastenough.render.escape import terminal_text
    from fastenough.render.units import fmt_ns

    con = Console()
    fig = out["figures"]
    runs = out["plan"]["remaining_runs"]
    for f in out.get("fix_first") or []:
        # Said first: no saving, cost or number of runs makes this a question of hours.
        con.print(terminal_text(
            f"Fix {f['code']} first: it changes your results ({f['title']}). "
            f"`fastenough explain {f['code']}` gives the fix; then run again and decide."),
            highlight=False)
    parts = [(name, ns) for name, ns in (("start-up", fig.get("startup_ns", 0)),
                                         ("load", fig["load_ns"]), ("prepare", fig["prepare_ns"]),
                                         ("compile/warm-up", fig["compile_ns"]),
                                         ("outside the steps and phases", out.get("other_ns", 0)))
             if ns > 0]
    detail = f" ({', '.join(f'{n} {fmt_ns(ns)}' for n, ns in parts)})" if parts else ""
    measured = " (measured)" if fig.get("wall_ns") else ""
    con.print(terminal_text(
        f"Run: {fig['steps_per_run']} steps x {fmt_ns(fig['steady_step_ns'])} + "
        f"{fmt_ns(out['one_time_ns'])} one-time{detail} = {fmt_ns(out['run_ns'])}{measured}; "
        f"{out['plan']['remaining_runs']} runs remain."), highlight=False)
    if not out["fixes"]:
        con.print("No finding carries a measured saving: nothing to price.")
    t = Table(show_lines=True)
    for col in ("finding", "saved h", "cost h", "verdict", "arithmetic"):
        t.add_column(col, overflow="fold")
    for f in out["fixes"]:
        verdict = _VERDICT_TEXT.get(f["verdict"]) or f"do it within {f['budget_hours']:.3g} h"
        cost = "-" if f["cost_hours"] is None else f"{f['cost_hours']:.4g}"
        t.add_row(*map(terminal_text, (f["code"], f"{f['hours_saved']:.3g}", cost, verdict,
                                       f["arithmetic"])))
    if out["fixes"]:
        con.print(t)
    for u in out.get("unpriced") or []:
        con.print(terminal_text(f"Not priced: {u['code']} ({u['title']}) has no estimated "
                                "saving; measure it with `fastenough ab` before and after "
                                "the fix."), highlight=False)
    if out.get("recommendation") == "measure":
        names = ", ".join(u["code"] for u in out["unpriced"])
        con.print(terminal_text(
            f"No priced fix pays for itself over {runs} runs, but {names} "
            f"{'has' if len(out['unpriced']) == 1 else 'have'} no saving estimate: not a "
            "reason to stop. Measure the fix with `fastenough ab` (this command as side A, "
            "the fixed one as B), then decide on the measured run."), highlight=False)
    if out.get("fix_first"):
        con.print(terminal_text(
            "Not frozen: " + ", ".join(f["code"] for f in out["fix_first"]) + " changes "
            "your results; fix it, run again and decide on that run."), highlight=False)
    if freeze is not None:
        con.print(terminal_text(f"Nothing pays for itself over {runs} "
                                f"runs: freeze this version and go back to research. Recorded "
                                f"in {freeze}."), highlight=False)
        con.print(terminal_text("Reopen when: " + "; ".join(out["reopen"])), highlight=False)
