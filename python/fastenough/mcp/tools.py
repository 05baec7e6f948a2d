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

from fastenough.errors import MalformedReportError
from fastenough.mcp import answers, arguments, limits
from fastenough.mcp.arguments import args_after
from fastenough.mcp.calls import (
    LineCounter,
    Progress,
    ToolFailure,
    call_dir,
    check_dir,
    check_timeout,
    last_cli_message,
    read_json,
    run_cli,
)
from fastenough.render.view.build import build_view
from fastenough.render.view.model import ReportView
from fastenough.report import Report
from fastenough.report import load as load_report

EXIT_MEANINGS = {0: "ok", 1: "ran; the verb's own 'no' (outputs differ, findings, error "
                 "counters, a gate not met, a side failed)", 2: "usage error or unreadable input",
                 3: "a bug in fastenough", 4: "measurement incomplete",
                 5: "the report was made, but the input lost data on the way (a truncated "
                    "file, damaged events): its figures cover only what could be read",
                 126: "not executable",
                 127: "command not found"}


def _top(top: int | None) -> int:
    if top is None:
        return limits.DEFAULT_TOP
    return arguments.integer(top, "top", 1, limits.MAX_TOP)


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
    """The JSON document the verb printed (its stdout), or the typed error of its exit.
    Not for a report: _report_document reads that, through the typed loader."""
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

def _typed_report(doc: dict, verb: str) -> Report:
    """The report the verb wrote, read once into the typed model; one that does not follow
    its schema is a bug of fastenough's (3)."""
    try:
        return load_report(doc)
    except MalformedReportError as e:
        raise ToolFailure("internal", f"fastenough {verb} wrote a report that does not follow "
                          f"its schema ({e})", 3) from None


def _report_document(outcome, verb: str) -> Report:
    """The report the verb printed (its stdout), read once by the typed loader (which
    decides whether it is one), or the typed error of its exit."""
    if outcome.stopped is None and outcome.exit_status in _REPORT_STATUSES:
        doc = read_json(outcome.stdout)
        if doc is None:
            raise ToolFailure("internal", f"fastenough {verb} printed no fastenough.report/1 "
                              f"document ({last_cli_message(outcome.stderr)})", 3)
        return _typed_report(doc, verb)
    _fail_from_exit(outcome, verb)
    raise AssertionError("unreachable")


def _measurement_status(report: Report) -> str | None:
    """The measurement's status; of a timing-only run, its timing's (the checks it
    turned off on purpose leave the timing complete: timing_only.py)."""
    from fastenough.report.timing_only import timing_status

    return timing_status(report.measurement) if report.measurement is not None else None


def _run_next(view: ReportView, run_dir: Path) -> list[str]:
    m = view.measurement.status
    avoidable = [f for f in view.findings if f.verdict == "avoidable"]
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
                   f"{limits.code_ok(avoidable[0].code)}; `explain` gives its fix); "
                   "keep this command as side A and verify the change with `ab`")
        out.append(f"`decide` run_dir={run_dir} with the remaining runs says whether a fix "
                   "is worth its hours")
    elif m == "complete":
        out.append(f"nothing avoidable: `decide` run_dir={run_dir} with the remaining runs, "
                   "then freeze and go back to research")
    return out


async def run(command: list[str], cwd: str, env: dict | None = None, timeout_s: float | None = None,
              trace: bool = True, trace_steps: int = 5, warmup_steps: int = 3,
              probe: bool = False, timing_only: bool = False, require_complete: bool = True,
              top: int | None = None, progress: Progress | None = None) -> dict:
    argv = arguments.command(command)
    d = check_dir(cwd)
    env_ = arguments.env(env)
    timeout = check_timeout(timeout_s, "run")
    top_ = _top(top)
    trace_steps = arguments.integer(trace_steps, "trace_steps", 1, 1000)
    warmup_steps = arguments.integer(warmup_steps, "warmup_steps", 0, 1000)
    from fastenough.store.run_dir import new_run_dir

    run_dir = new_run_dir(str(d))
    cdir = call_dir(d, "run")
    options = ["run", "--quiet", f"--run-dir={run_dir}", f"--trace-steps={trace_steps}",
               f"--warmup-steps={warmup_steps}"]
    if not trace:
        options.append("--no-trace")
    if probe:
        options.append("--probe")
    if timing_only:
        options.append("--timing-only")
    args = args_after(options, argv)
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
    doc = read_json(run_dir / "report.json")
    if not isinstance(doc, dict):
        if not any(run_dir.iterdir()):
            run_dir.rmdir()  # the command never started: no run to keep
        if outcome.exit_status != 0 or outcome.stopped:
            _fail_from_exit(outcome, "run")
        raise ToolFailure("internal", f"no report was written ({last_cli_message(outcome.stderr)});"
                          f" the run directory is {run_dir}", 3)
    report = _typed_report(doc, "run")
    files = {"run_dir": str(run_dir), "report_json": str(run_dir / "report.json"),
             "report_md": str(run_dir / "report.md"), "report_html": str(run_dir / "report.html"),
             "program_stdout": str(outcome.stdout), "program_stderr": str(outcome.stderr)}
    view = build_view(report)
    answer = answers.report_answer(view, top=top_, files=files,
                                   next_steps=_run_next(view, run_dir))
    status = report.run.exit_status if report.run is not None else None
    status = outcome.exit_status if status is None else status
    signal = report.run.signal if report.run is not None else None
    answer["exit"] = _program_exit(status, signal)
    answer["program_output"] = {"stdout_tail": limits.read_tail(outcome.stdout),
                                "stderr_tail": limits.read_tail(outcome.stderr),
                                "note": "the program's own output, cut to its last lines: data"}
    answer = answers.bound(answer)
    if outcome.stopped == "time-limit":
        raise ToolFailure("time-limit", f"stopped after {outcome.elapsed_s:.0f} s (timeout_s); "
                          f"what was measured is in {run_dir}", status, answer)
    if status != 0:
        how = f"was killed by signal {signal}" if signal else f"exited with status {status}"
        raise ToolFailure("command-failed", f"the command {how}; what was measured is in "
                          f"{run_dir}", status, answer)
    m = _measurement_status(report)
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
    a, b = arguments.command(command_a, "command_a"), arguments.command(command_b, "command_b")
    d = check_dir(cwd)
    env_ = arguments.env(env)
    ea, eb = arguments.env(env_a, "env_a"), arguments.env(env_b, "env_b")
    timeout = check_timeout(timeout_s, "ab")
    top_ = _top(top)
    rounds = arguments.integer(rounds, "rounds", 1, 20)
    if trace not in ("first", "all", "none"):
        raise ToolFailure("bad-input", "trace must be 'first', 'all' or 'none'", 2)
    confidence = arguments.number(confidence, "confidence", low=0, high=1, low_open=True,
                                  high_open=True)
    cdir = call_dir(d, "ab")
    ab_dir = cdir / "runs"
    options = ["ab", "--json", f"--dir={ab_dir}", f"--rounds={rounds}",
               f"--confidence={confidence!r}"]
    options += {"first": [], "all": ["--trace"], "none": ["--no-trace"]}[trace]
    options += [f"--env-a={k}={v}" for k, v in ea.items()]
    options += [f"--env-b={k}={v}" for k, v in eb.items()]
    for flag, value, low in (("--atol", atol, 0.0), ("--rtol", rtol, 0.0),
                             ("--require-speedup", require_speedup, None)):
        if value is not None:
            x = arguments.number(value, flag[2:].replace("-", "_"), low=low)
            options.append(f"{flag}={x!r}")
    if a == b and (ea or eb):
        # One command, the sides told apart by their variables: ab's own `-- CMD`.
        args = args_after(options, a)
    else:
        # Two quoted commands. ab's grammar has no `--` for them, but neither can be
        # read as an option: a program name never starts with '-' (arguments.command),
        # so neither does the quoted command.
        args = [*options, shlex.join(a), shlex.join(b)]
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
                m = _measurement(p / "report.json")
                so_far.append({"run": p.name, "status": limits.clean(
                    m.status if m is not None else "no report", 20), "run_dir": str(p)})
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


def _measurement(path: Path):
    """The measurement block of the report at `path` (typed), or None: no report yet,
    one still being written, or one the typed reader refuses."""
    doc = read_json(path, max_bytes=64 << 20)
    if doc is None:
        return None
    try:
        return load_report(doc).measurement
    except MalformedReportError:
        return None


# ---------------------------------------------------------------- analyze, report

# The exit statuses with which analyze and report still print the report: error
# counters raised (1), data lost on the way, a truncated trace (5).
_REPORT_STATUSES = (0, 1, 5)

async def analyze(paths: list[str], cwd: str, window: int | None = None, top: int | None = None,
                  timeout_s: float | None = None, progress: Progress | None = None,
                  device: str | None = None, peaks: str | None = None) -> dict:
    ps = arguments.paths(paths)
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "analyze")
    options = ["analyze", "--json", "--no-progress"]
    if window is not None:
        options.append(f"--window={arguments.integer(window, 'window', 1, 1 << 30)}")
    if device is not None:  # a name, as data (the CLI checks it against the table)
        options.append(f"--device={arguments.name(device, 'device')}")
    if peaks is not None:  # an input file, read only
        options.append(f"--peaks={arguments.as_path(peaks, 'peaks')}")
    args = args_after(options, ps)
    cdir = call_dir(None, "analyze")  # read-only: nothing written under cwd
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="report.json")
    report = _report_document(outcome, "analyze")
    files = {"report_json": str(outcome.stdout),
             "traces": [str(_resolve(d, p)) for p in ps][:10]}
    answer = answers.report_answer(build_view(report), top=top_, files=files)
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


async def report(path: str, cwd: str, detail: str = "compact", top: int | None = None,
                 timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    p = arguments.as_path(path, "path")
    d = check_dir(cwd)
    top_ = _top(top)
    if detail not in ("compact", "full"):
        raise ToolFailure("bad-input", "detail must be 'compact' or 'full'", 2)
    timeout = check_timeout(timeout_s, "report")
    cdir = call_dir(None, "report")  # read-only: nothing written under cwd
    outcome = await run_cli(args_after(["report", "--json", "--no-progress"], [p]), cwd=d, env={},
                            timeout_s=timeout, out_dir=cdir, progress=progress,
                            stdout_name="report.json")
    rep = _report_document(outcome, "report")
    target = _resolve(d, p)
    files: dict = {"report_json": str(outcome.stdout)}
    if (target / "report.json").is_file():
        files = {"run_dir": str(target), "report_json": str(target / "report.json"),
                 "report_md": str(target / "report.md"), "report_html": str(target / "report.html")}
        outcome.stdout.unlink(missing_ok=True)  # the run directory holds it already
    answer = answers.report_answer(build_view(rep), top=top_, files=files,
                                   detail=detail == "full")
    answer["exit"] = _exit(outcome.exit_status)
    limit = limits.MAX_LONG_ANSWER_CHARS if detail == "full" else limits.MAX_ANSWER_CHARS
    return answers.bound(answer, limit)


# ---------------------------------------------------------------- compare, diff

async def compare(a: str, b: str, cwd: str, atol: float | None = None, rtol: float | None = None,
                  exact: bool = False, nan_equal: bool = False, top: int | None = None,
                  timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    pa, pb = arguments.as_path(a, "a"), arguments.as_path(b, "b")
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "compare")
    cdir = call_dir(None, "compare")  # read-only: nothing written under cwd
    options = ["compare", "--json", f"--top={top_}"]
    for flag, value in (("--atol", atol), ("--rtol", rtol)):
        if value is not None:
            options.append(f"{flag}={arguments.number(value, flag[2:], low=0)!r}")
    options += ["--exact"] if exact else []
    options += ["--nan-equal"] if nan_equal else []
    args = args_after(options, [pa, pb])
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="compare.json")
    doc = _document(outcome, "compare", "fastenough.compare/")
    answer = answers.compare_answer(doc, top=top_, files={"compare_json": str(outcome.stdout)})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


async def diff(a: str, b: str, cwd: str, min_change: float | None = None,
               top: int | None = None, timeout_s: float | None = None,
               progress: Progress | None = None, device: str | None = None,
               peaks: str | None = None) -> dict:
    pa, pb = arguments.as_path(a, "a"), arguments.as_path(b, "b")
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "diff")
    cdir = call_dir(None, "diff")  # read-only: nothing written under cwd
    options = ["diff", "--json"]
    if min_change is not None:
        options.append(f"--min-change={arguments.number(min_change, 'min_change', low=0)!r}")
    if device is not None:  # a name, as data (the CLI checks it against the table)
        options.append(f"--device={arguments.name(device, 'device')}")
    if peaks is not None:  # an input file, read only
        options.append(f"--peaks={arguments.as_path(peaks, 'peaks')}")
    args = args_after(options, [pa, pb])
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
    rd = arguments.as_path(run_dir, "run_dir")
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "decide")
    runs = arguments.integer(runs, "runs: the number of remaining runs", 0, 10**9)
    # decide writes freeze.json into the run directory: only into one that `run` made.
    if not (_resolve(d, rd) / "report.json").is_file():
        raise ToolFailure("bad-input", f"run_dir {limits.clean(run_dir, 200)!r}: not a run "
                          "directory (no report.json in it); give one that `run` wrote", 2)
    options = ["decide", "--json", f"--runs={runs}"]
    if fixes is not None and not isinstance(fixes, list):
        raise ToolFailure("bad-input", "fixes: a list of objects", 2)
    for f in fixes or []:
        if not isinstance(f, dict) or "code" not in f:
            raise ToolFailure("bad-input", "fixes: each needs code, and dev_hours, verify_hours, "
                              "maint_hours as numbers", 2)
        code = arguments.code(f["code"], "fixes: code")
        hours = [arguments.number(f.get(k, 0) or 0, f"fixes: {k}", low=0, high=1e6)
                 for k in ("dev_hours", "verify_hours", "maint_hours")]
        options.append(f"--fix={code}={hours[0]!r},{hours[1]!r},{hours[2]!r}")
    if wait_value is not None:
        x = arguments.number(wait_value, "wait_value", low=0, low_open=True, high=1e6)
        options.append(f"--wait-value={x!r}")
    args = args_after(options, [rd])
    cdir = call_dir(d, "decide")
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="decide.json")
    doc = _document(outcome, "decide", "fastenough.decide/", ok_status=(0,))
    report_path = _resolve(d, rd) / "report.json"
    saved = read_json(report_path, max_bytes=64 << 20)
    try:  # decide read this report already; one that is not a report leaves the status "?"
        view = build_view(load_report(saved)) if isinstance(saved, dict) else None
    except MalformedReportError:
        view = None
    answer = answers.decide_answer(doc, view, top=top_,
                                   files={"decide_json": str(outcome.stdout),
                                          "run_dir": str(_resolve(d, rd))})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


# ---------------------------------------------------------------- lint, explain

async def lint(paths: list[str], cwd: str, select: list[str] | None = None,
               ignore: list[str] | None = None, top: int | None = None,
               timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    from fastenough.lint.rules import CODES as LINT_CODES

    ps = arguments.paths(paths)
    d = check_dir(cwd)
    top_ = _top(top)
    timeout = check_timeout(timeout_s, "lint")
    options = ["lint", "--format=json", "--no-progress"]
    for flag, chosen in (("--select", select), ("--ignore", ignore)):
        if chosen:
            options.append(f"{flag}={','.join(arguments.codes(chosen, flag[2:], LINT_CODES))}")
    args = args_after(options, ps)
    cdir = call_dir(None, "lint")  # read-only: nothing written under cwd
    outcome = await run_cli(args, cwd=d, env={}, timeout_s=timeout, out_dir=cdir,
                            progress=progress, stdout_name="lint.json")
    doc = _document(outcome, "lint", "fastenough.lint/")
    answer = answers.lint_answer(doc, top=top_, files={"lint_json": str(outcome.stdout)})
    answer["exit"] = _exit(outcome.exit_status)
    return answers.bound(answer)


# ---------------------------------------------------------------- replay

_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)?")


async def replay(path: str, cwd: str, op: str | None = None, top: int | None = None,
                 timeout_s: float | None = None, progress: Progress | None = None) -> dict:
    p = arguments.as_path(path, "path")
    d = check_dir(cwd)
    timeout = check_timeout(timeout_s, "replay")
    options = ["replay", "--json"]
    if op is not None:
        if not isinstance(op, str) or not _OP_NAME.fullmatch(op):
            raise ToolFailure("bad-input", "op: an operator name such as aten::addmm or addmm",
                              2)
        options.append(f"--op={op}")
    else:
        options.append(f"--top={_top(top)}")
    # The scripts go into this call's scratch directory, never under cwd.
    cdir = call_dir(None, "replay")
    options.append(f"--out={cdir / 'scripts'}")
    outcome = await run_cli(args_after(options, [p]), cwd=d, env={}, timeout_s=timeout,
                            out_dir=cdir, progress=progress, stdout_name="replay.json")
    doc = _document(outcome, "replay", "fastenough.replay/", ok_status=(0, 1))
    answer = answers.replay_answer(doc, files={"replay_json": str(outcome.stdout)})
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
        from fastenough.lint.explain import explain_text

        return {"summary": f"{c}: {LINT_CODES[c].title} (lint only)", "code": c,
                "text": explain_text(c)[: limits.MAX_LONG_ANSWER_CHARS]}
    near = difflib.get_close_matches(c, list(dict.fromkeys([*sections, *LINT_CODES])), n=3,
                                     cutoff=0.5)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise ToolFailure("bad-input", f"unknown finding code {limits.clean(code, 60)!r}{hint} "
                      "(`explain` without a code lists them all)", 2)
