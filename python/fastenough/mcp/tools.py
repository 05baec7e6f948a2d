"""One function per tool: check the arguments, run the verb (calls.py), shape the answer
(answers.py). Each returns the answer (a dict) or raises calls.ToolFailure.

No function here imports `mcp`: server.py wraps them as MCP tools, and tests can
call them directly.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from fastenough.mcp import answers, limits
from fastenough.mcp.calls import (
    LineCounter,
    Progress,
    ToolFailure,
    call_dir,
    check_dir,
    check_env,
    check_timeout,
    last_cli_message,
    read_json,
    run_cli,
)

EXIT_MEANINGS = {0: "ok", 1: "ran; the verb's own 'no' (outputs differ, findings, error "
                 "counters, a gate not met, a side failed)", 2: "usage error or unreadable input",
                 3: "a bug in fastenough", 4: "measurement incomplete", 126: "not executable",
                 127: "command not found"}


def _top(top: int | None) -> int:
    if top is None:
        return limits.DEFAULT_TOP
    if not (1 <= top <= limits.MAX_TOP):
        raise ToolFailure("bad-input", f"top must be in 1..{limits.MAX_TOP}", 2)
    return int(top)


def _argv(command: object, what: str = "command") -> list[str]:
    if isinstance(command, str) or not isinstance(command, list) or not command:
        raise ToolFailure("bad-input", f"{what}: give the program and its arguments as a list "
                          'of strings, e.g. ["python", "eval.py", "--cfg", "x"] (no shell '
                          "runs it)", 2)
    for a in command:
        if not isinstance(a, str) or "\0" in a:
            raise ToolFailure("bad-input", f"{what}: every argument must be a string", 2)
    if not command[0]:
        raise ToolFailure("bad-input", f"{what}: the program name is empty", 2)
    return list(command)


def _paths(paths: object, what: str = "paths") -> list[str]:
    if isinstance(paths, str):
        paths = [paths]
    if not isinstance(paths, list) or not paths or not all(
            isinstance(p, str) and p and "\0" not in p for p in paths):
        raise ToolFailure("bad-input", f"{what}: give one or more paths", 2)
    return list(paths)


def _fail_from_exit(outcome, verb: str) -> None:
    """The CLI's exit statuses that mean "no document": typed errors."""
    msg = last_cli_message(outcome.stderr) or f"fastenough {verb} exited {outcome.exit_status}"
    if outcome.stopped == "time-limit":
        raise ToolFailure("time-limit", f"fastenough {verb} stopped after {outcome.elapsed_s:.0f} "
                          "s, its time limit", outcome.exit_status)
    if outcome.exit_status == 2:
        raise ToolFailure("bad-input", msg, 2)
    if outcome.exit_status == 127:
        raise ToolFailure("command-not-found", msg, 127)
    if outcome.exit_status == 126:
        raise ToolFailure("command-not-executable", msg, 126)
    raise ToolFailure("internal", msg, outcome.exit_status)


def _document(outcome, verb: str, schema: str, ok_status=(0, 1)) -> dict:
    """The JSON document the verb printed (its stdout), or the typed error of its exit."""
    if outcome.stopped is None and outcome.exit_status in ok_status:
        doc = read_json(outcome.stdout)
        if isinstance(doc, dict) and str(doc.get("schema", "")).startswith(schema):
            return doc
        raise ToolFailure("internal", f"fastenough {verb} printed no {schema} document "
                          f"({last_cli_message(outcome.stderr)})", 3)
    _fail_from_exit(outcome, verb)
    raise AssertionError("unreachable")


def _exit(status: int) -> dict:
    return {"code": status, "meaning": EXIT_MEANINGS.get(status, "the program's own status")}


def _program_exit(status: int, sig) -> dict:
    """The program's own exit status (`run`): not the CLI's meanings."""
    if status == 0:
        return {"code": 0, "meaning": "the program succeeded"}
    if isinstance(sig, int) and sig:
        return {"code": status, "meaning": f"the program was killed by signal {sig}"}
    return {"code": status, "meaning": "the program's own exit status"}


def _resolve(cwd: Path, p: str) -> Path:
    q = Path(p)
    return q if q.is_absolute() else cwd / q


# ---------------------------------------------------------------- run

def _run_next(report: dict, run_dir: Path) -> list[str]:
    m = (report.get("measurement") or {}).get("status")
    findings = report.get("findings") or []
    avoidable = [f for f in findings if f.get("verdict") == "avoidable"]
    out = []
    if m != "complete":
        out.append("the measurement is incomplete: read measurement.reasons before the "
                   "findings; 'no findings' means nothing here")
    if not (run_dir / "outputs").is_dir():
        out.append("no outputs recorded: before changing the program, record what it computes "
                   "(fastenough.record('scores', tensor)) so that `ab` can prove a change "
                   "keeps the answers")
    if avoidable:
        out.append(f"fix one kind of waste at a time, the first first ("
                   f"{limits.code_ok(avoidable[0].get('code'))}; `explain` gives its fix); "
                   "keep this command as side A and verify the change with `ab`")
        out.append(f"`decide` run_dir={run_dir} with the remaining runs says whether a fix "
                   "is worth its hours")
    elif m == "complete":
        out.append(f"nothing avoidable: `decide` run_dir={run_dir} with the remaining runs, "
                   "then freeze and go back to research")
    return out


async def run(command: list[str], cwd: str, env: dict | None = None, timeout_s: float | None = None,
              trace: bool = True, trace_steps: int = 5, warmup_steps: int = 3,
              probe: bool = False, require_complete: bool = True, top: int | None = None,
              progress: Progress | None = None) -> dict:
    argv = _argv(command)
    d = check_dir(cwd)
    env_ = check_env(env)
    timeout = check_timeout(timeout_s, "run")
    top_ = _top(top)
    if not (1 <= trace_steps <= 1000) or not (0 <= warmup_steps <= 1000):
        raise ToolFailure("bad-input", "trace_steps must be in 1..1000, warmup_steps in 0..1000", 2)
    from fastenough.supervisor.run_dir import new_run_dir

    run_dir = new_run_dir(str(d))
    cdir = call_dir(d, "run")
    args = ["run", "--quiet", "--run-dir", str(run_dir), "--trace-steps", str(trace_steps),
            "--warmup-steps", str(warmup_steps)]
    if not trace:
        args.append("--no-trace")
    if probe:
        args.append("--probe")
    args += ["--", *argv]
    steps, phases = LineCounter(run_dir / "steps.jsonl"), LineCounter(run_dir / "phases.jsonl")

    def describe() -> str:
        n = steps.update()
        phases.update()
        phase = ""
        try:
            last = json.loads(phases.last) if phases.last else {}
            if last.get("edge") == "begin":
                phase = f", in phase {limits.clean(last.get('phase', ''), 40)}"
        except ValueError:
            pass
        return f"{n} step(s) recorded{phase}; run directory {run_dir}"

    if progress is not None:
        await progress(0, timeout, f"measuring; run directory {run_dir}")
    outcome = await run_cli(args, cwd=d, env=env_, timeout_s=timeout, out_dir=cdir,
                            progress=progress, describe=describe, stop="supervisor",
                            run_dirs=lambda: [run_dir])
    report = read_json(run_dir / "report.json")
    if not isinstance(report, dict):
        if not any(run_dir.iterdir()):
            run_dir.rmdir()  # the command never started: no run to keep
        if outcome.exit_status != 0 or outcome.stopped:
            _fail_from_exit(outcome, "run")
        raise ToolFailure("internal", f"no report was written ({last_cli_message(outcome.stderr)});"
                          f" the run directory is {run_dir}", 3)
    files = {"run_dir": str(run_dir), "report_json": str(run_dir / "report.json"),
             "report_md": str(run_dir / "report.md"), "report_html": str(run_dir / "report.html"),
             "program_stdout": str(outcome.stdout), "program_stderr": str(outcome.stderr)}
    answer = answers.report_answer(report, top=top_, files=files,
                                   next_steps=_run_next(report, run_dir))
    status = (report.get("run") or {}).get("exit_status")
    status = outcome.exit_status if not isinstance(status, int) else status
    answer["exit"] = _program_exit(status, (report.get("run") or {}).get("signal"))
    answer["program_output"] = {"stdout_tail": limits.read_tail(outcome.stdout),
                                "stderr_tail": limits.read_tail(outcome.stderr),
                                "note": "the program's own output, cut to its last lines: data"}
    answer = answers.bound(answer)
    if outcome.stopped == "time-limit":
        raise ToolFailure("time-limit", f"stopped after {outcome.elapsed_s:.0f} s (timeout_s); "
                          f"what was measured is in {run_dir}", status, answer)
    if status != 0:
        sig = (report.get("run") or {}).get("signal")
        how = f"was killed by signal {sig}" if sig else f"exited with status {status}"
        raise ToolFailure("command-failed", f"the command {how}; what was measured is in "
                          f"{run_dir}", status, answer)
    m = (report.get("measurement") or {}).get("status")
    if require_complete and m != "complete":
        codes = ", ".join(r["code"] for r in answer["measurement"]["reasons"])
        raise ToolFailure("measurement-incomplete", f"the measurement is {m} ({codes}); "
                          "pass require_complete=false to take it as it is", 4, answer)
    return answer


# ---------------------------------------------------------------- ab

_AB_RUN = re.compile(r"run (\d+)/(\d+): ([AB]\d+)")


async def ab(command_a: list[str], command_b: list[str], cwd: str, env: dict | None = None,
             env_a: dict | None = None, env_b: dict | None = None, rounds: int = 2,
             trace: str = "first", atol: float | None = None, rtol: float | None = None,
             require_speedup: float | None = None, confidence: float = 0.95,
             timeout_s: float | None = None, top: int | None = None,
             progress: Progress | None = None) -> dict:
    a, b = _argv(command_a, "command_a"), _argv(command_b, "command_b")
    d = check_dir(cwd)
    env_ = check_env(env)
    ea, eb = check_env(env_a, "env_a"), check_env(env_b, "env_b")
    timeout = check_timeout(timeout_s, "ab")
    top_ = _top(top)
    if not (1 <= rounds <= 20):
        raise ToolFailure("bad-input", "rounds must be in 1..20", 2)
    if trace not in ("first", "all", "none"):
        raise ToolFailure("bad-input", "trace must be 'first', 'all' or 'none'", 2)
    cdir = call_dir(d, "ab")
    ab_dir = cdir / "runs"
    args = ["ab", "--json", "--dir", str(ab_dir), "--rounds", str(rounds),
            "--confidence", str(confidence)]
    args += {"first": [], "all": ["--trace"], "none": ["--no-trace"]}[trace]
    for k, v in ea.items():
        args += ["--env-a", f"{k}={v}"]
    for k, v in eb.items():
        args += ["--env-b", f"{k}={v}"]
    for flag, value in (("--atol", atol), ("--rtol", rtol), ("--require-speedup", require_speedup)):
        if value is not None:
            args += [flag, str(value)]
    args += [shlex.join(a), shlex.join(b)]
    total = 4 * rounds

    def describe() -> str:
        text = limits.read_tail(cdir / "stderr.txt", chars=2000, lines=20)
        done = _AB_RUN.findall(text)
        if not done:
            return f"run 1/{total} (A1) under way"
        i, n, name = done[-1]
        return f"run {i}/{n} ({name}) done"

    def run_dirs() -> list[Path]:
        return sorted(p for p in ab_dir.iterdir() if p.is_dir()) if ab_dir.is_dir() else []

    outcome = await run_cli(args, cwd=d, env=env_, timeout_s=timeout, out_dir=cdir,
                            progress=progress, describe=describe, stop="group",
                            run_dirs=run_dirs, stdout_name="ab-stdout.json")
    files = {"ab_dir": str(ab_dir), "ab_json": str(ab_dir / "ab.json"),
             "ab_html": str(ab_dir / "ab.html"), "stderr": str(outcome.stderr)}
    if outcome.stopped or outcome.exit_status not in (0, 1):
        if outcome.stopped:
            so_far = []
            for p in run_dirs():
                m = (read_json(p / "report.json", max_bytes=64 << 20) or {}).get("measurement")
                so_far.append({"run": p.name, "status": limits.clean(
                    (m or {}).get("status", "no report"), 20), "run_dir": str(p)})
            raise ToolFailure("time-limit", f"stopped after {outcome.elapsed_s:.0f} s (timeout_s);"
                              f" the runs so far are in {ab_dir}", outcome.exit_status,
                              {"summary": f"stopped at the time limit after {len(so_far)} of "
                                          f"{total} runs: no verdict",
                               "measurement": {"status": "stopped", "runs": so_far},
                               "files": {"ab_dir": str(ab_dir), "stderr": str(outcome.stderr)}})
        _fail_from_exit(outcome, "ab")
    doc = _document(outcome, "ab", "fastenough.ab/")
    answer = answers.ab_answer(doc, top=top_, files=files)
    answer["exit"] = _exit(outcome.exit_status)
    answer = answers.bound(answer)
    if doc.get("failed"):
        f = doc["failed"]
        raise ToolFailure("command-failed", f"side {limits.clean(f.get('side'), 4)} run "
                          f"{f.get('run')} exited with status {f.get('exit_status')}; the runs so "
                          f"far are in {ab_dir}", f.get("exit_status"), answer)
    return answer


# ---------------------------------------------------------------- analyze, report

async def analyze(paths: list[str], cwd: str, window: int | None = None, top: int | None = None,
                  timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    ps = _paths(paths)
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "analyze")
    cdir = call_dir(d, "analyze")
    args = ["analyze", "--json", "--no-progress", *ps]
    if window is not None:
        args += ["--window", str(window)]
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="report.json")
    report = _document(outcome, "analyze", "fastenough.report/")
    files = {"report_json": str(outcome.stdout),
             "traces": [str(_resolve(d, p)) for p in ps][:10]}
    answer = answers.report_answer(report, top=top_, files=files)
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


async def report(path: str, cwd: str, detail: str = "compact", top: int | None = None,
                 timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    (p,) = _paths([path], "path")
    d = check_dir(cwd)
    top_ = _top(top)
    if detail not in ("compact", "full"):
        raise ToolFailure("bad-input", "detail must be 'compact' or 'full'", 2)
    timeout = check_timeout(timeout_s, "report")
    cdir = call_dir(d, "report")
    outcome = await run_cli(["report", p, "--json", "--no-progress"], cwd=d, env={},
                            timeout_s=timeout, out_dir=cdir, progress=progress,
                            stdout_name="report.json")
    rep = _document(outcome, "report", "fastenough.report/", ok_status=(0,))
    target = _resolve(d, p)
    files: dict = {"report_json": str(outcome.stdout)}
    if (target / "report.json").is_file():
        files = {"run_dir": str(target), "report_json": str(target / "report.json"),
                 "report_md": str(target / "report.md"), "report_html": str(target / "report.html")}
        outcome.stdout.unlink(missing_ok=True)  # the run directory holds it already
    answer = answers.report_answer(rep, top=top_, files=files, detail=detail == "full")
    answer["exit"] = _exit(outcome.exit_status)
    limit = limits.MAX_LONG_ANSWER_CHARS if detail == "full" else limits.MAX_ANSWER_CHARS
    return answers.bound(answer, limit)


# ---------------------------------------------------------------- compare, diff

async def compare(a: str, b: str, cwd: str, atol: float | None = None, rtol: float | None = None,
                  exact: bool = False, nan_equal: bool = False, top: int | None = None,
                  timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    pa, pb = _paths([a], "a")[0], _paths([b], "b")[0]
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "compare")
    cdir = call_dir(d, "compare")
    args = ["compare", pa, pb, "--json", "--top", str(top_)]
    for flag, value in (("--atol", atol), ("--rtol", rtol)):
        if value is not None:
            args += [flag, str(value)]
    args += ["--exact"] if exact else []
    args += ["--nan-equal"] if nan_equal else []
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="compare.json")
    doc = _document(outcome, "compare", "fastenough.compare/")
    answer = answers.compare_answer(doc, top=top_, files={"compare_json": str(outcome.stdout)})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


async def diff(a: str, b: str, cwd: str, min_change: float | None = None,
               top: int | None = None, timeout_s: float | None = None,
               progress: Progress | None = None) -> dict:
    pa, pb = _paths([a], "a")[0], _paths([b], "b")[0]
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "diff")
    cdir = call_dir(d, "diff")
    args = ["diff", pa, pb, "--json"]
    if min_change is not None:
        args += ["--min-change", str(min_change)]
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="diff.json")
    doc = _document(outcome, "diff", "fastenough.diff/", ok_status=(0,))
    answer = answers.diff_answer(doc, top=top_, files={"diff_json": str(outcome.stdout)})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


# ---------------------------------------------------------------- decide

async def decide(run_dir: str, runs: int, cwd: str, fixes: list[dict] | None = None,
                 wait_value: float | None = None, top: int | None = None,
                 timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    (rd,) = _paths([run_dir], "run_dir")
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "decide")
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 0:
        raise ToolFailure("bad-input", "runs: the number of remaining runs, 0 or more", 2)
    args = ["decide", rd, "--json", "--runs", str(runs)]
    for f in fixes or []:
        try:
            code = str(f["code"])
            hours = [float(f.get(k, 0) or 0) for k in ("dev_hours", "verify_hours", "maint_hours")]
        except (KeyError, TypeError, ValueError):
            raise ToolFailure("bad-input", "fixes: each needs code, and dev_hours, verify_hours, "
                              "maint_hours as numbers", 2) from None
        args += ["--fix", f"{code}={hours[0]},{hours[1]},{hours[2]}"]
    if wait_value is not None:
        args += ["--wait-value", str(wait_value)]
    cdir = call_dir(d, "decide")
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="decide.json")
    doc = _document(outcome, "decide", "fastenough.decide/", ok_status=(0,))
    report_path = _resolve(d, rd) / "report.json"
    rep = read_json(report_path, max_bytes=64 << 20)
    answer = answers.decide_answer(doc, rep if isinstance(rep, dict) else None, top=top_,
                                   files={"decide_json": str(outcome.stdout),
                                          "run_dir": str(_resolve(d, rd))})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


# ---------------------------------------------------------------- lint, explain

async def lint(paths: list[str], cwd: str, select: list[str] | None = None,
               ignore: list[str] | None = None, top: int | None = None,
               timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    ps = _paths(paths)
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "lint")
    args = ["lint", "--format", "json", "--no-progress", *ps]
    for flag, codes in (("--select", select), ("--ignore", ignore)):
        if codes:
            if not all(isinstance(c, str) for c in codes):
                raise ToolFailure("bad-input", f"{flag[2:]}: a list of codes", 2)
            args += [flag, ",".join(codes)]
    cdir = call_dir(d, "lint")
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="lint.json")
    doc = _document(outcome, "lint", "fastenough.lint/")
    answer = answers.lint_answer(doc, top=top_, files={"lint_json": str(outcome.stdout)})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


def explain(code: str | None = None) -> dict:
    """A finding code's section of the catalog (docs/findings.md), a lint-only code's
    explanation, or every code with its title."""
    import difflib

    from fastenough.findings_doc import read_sections
    from fastenough.lint.rules import CODES as LINT_CODES

    sections = read_sections()
    if code is None or not str(code).strip():
        return {"summary": f"{len(sections)} finding codes",
                "codes": [{"code": s.code, "title": s.title} for s in sections.values()],
                "lint_only_codes": sorted(c for c in LINT_CODES if c not in sections),
                "next": ["`explain` with a code gives its section: meaning, evidence, fix, "
                         "how the saving is bounded, false alarms"]}
    c = str(code).strip().lower()
    if c in sections:
        text = sections[c].text
        return {"summary": f"{c}: {sections[c].title}", "code": c,
                "text": text[: limits.MAX_LONG_ANSWER_CHARS]}
    if c in LINT_CODES:
        from fastenough.cli.lint import explain_text

        return {"summary": f"{c}: {LINT_CODES[c].title} (lint only)", "code": c,
                "text": explain_text(c)[: limits.MAX_LONG_ANSWER_CHARS]}
    near = difflib.get_close_matches(c, list(dict.fromkeys([*sections, *LINT_CODES])), n=3,
                                     cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise ToolFailure("bad-input", f"unknown finding code {limits.clean(code, 60)!r}{hint} "
                      "(`explain` without a code lists them all)", 2)
