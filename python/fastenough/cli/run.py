"""`fastenough run`: run a command under the supervisor and report where its time went."""

from __future__ import annotations

import argparse
import shlex
import sys

from fastenough.errors import UsageError
from fastenough.inputs.numbers import finite_float, whole_number
from fastenough.visible import visible

HELP = "run a command (python, torchrun, a script) and report where its time went"
DESCRIPTION = """\
Run COMMAND with the fastenough agent loaded in every Python process it starts
(torchrun ranks and DataLoader workers included; no code change needed), sample
the devices and the process tree while it runs, and report at exit: the phase
table (startup / warmup / steady / profile / tail and your own phases), steady
throughput, and findings ranked by the most they can save.

Everything lands in a run directory (.fastenough/runs/<time>-<id>/ unless
--run-dir): meta.json, phases.jsonl, steps.jsonl, samples.csv, trace/,
report.json, report.md, report.html (one self-contained page with charts; open
it in any browser, offline). A summary row goes into .fastenough/runs.db
(`fastenough history`).

examples:
  fastenough run -- python eval.py --cfg x
  fastenough run --trace-steps 10 -- torchrun --nproc_per_node=2 train.py
  fastenough run --json report.json -- python -m mypkg.bench
  fastenough run --json - -- python eval.py | jq .findings
  fastenough run --analyze-in-job -- \\
      torchrun --nproc_per_node=4 train.py

--analyze-in-job: each rank analyses its own profiler trace when it exits
(after the program's own exit work) and sends its summary
(fastenough.rank-summary/1) to rank 0 over a gloo group of fastenough's own,
never the program's; rank 0 writes them to RUN_DIR/rank-summaries/ and the
report is merged from them instead of the traces being read again after the
job. A rank waits at most --in-job-timeout seconds for the others; a rank that
sends nothing (crashed, too late) is named in the report (run_details.in_job)
and on stderr, and the traces that exist are analysed as without the option.
A single process analyses its trace in place. gloo (CPU) jobs record a trace
too, unless --no-trace-gloo.

--json FILE writes report.json's content to FILE and leaves stdout to the
command. --json - prints the report on stdout, which then carries nothing else:
the command's own stdout is moved to stderr for that run.

The command keeps your terminal: it reads the keyboard and /dev/tty as in a
plain run, and Ctrl-C, Ctrl-\\ and Ctrl-Z reach it directly (Ctrl-Z stops the
whole job, `fg` continues it). The report is written however the command ends.
Signals sent to fastenough itself are passed on to the command's process
group: SIGINT, SIGTERM, SIGHUP and SIGQUIT (a second one kills the group),
SIGTSTP and SIGCONT (fastenough stops and continues with it). A run stopped
that way (a time limit, a batch system) also ends, once the command has ended,
every process still running with this run's FASTENOUGH_RUN_DIR (a daemon in a
session of its own): SIGTERM, and SIGKILL after 5 s. If fastenough is
killed, the command gets SIGTERM rather than running on unreported; the run
directory then has no report: `fastenough report RUN_DIR --reanalyze -o
RUN_DIR/report.json` makes it (also after a disk was full, or when
fastenough's own analysis crashed: it runs in a process of its own, so the
exit status is still the command's).

--timing-only: the agent hooks only what finds the steps and their mode (the
main model's outermost call once the first calls have found it, the
DataLoader, the optimizer, a count of backward calls, fastenough.step()) and
reads nothing else of the program. A full run's checks hook module calls,
so their cost grows with how often the program calls its modules: a fix that
calls a head 8 times per batch where it was called once makes the agent cost
more in B than in A, and a speed-up
measured with them is the program's plus that difference. Use a full run for
the findings, --timing-only to time them.

When the agent could not measure what it measures (the program never imported
torch, imported it in a way the agent did not see, no step was found, only a
handful of steady steps, the checks stopped), the report says so first and the
last line repeats it: "no findings" then means nothing.

exit status: the command's own (128 + N when killed by signal N), 127 command
not found, 126 not executable, 2 usage error; with --require-complete, 4 when
the command succeeded but the measurement was incomplete.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help=HELP, description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--run-dir", metavar="DIR", help="write the run directory here (new or empty)")
    p.add_argument("--hz", type=finite_float(0, 1000, lo_open=True), default=2.0,
                   help="sampling rate (default 2 per second)")
    p.add_argument("--no-trace", action="store_true", help="no profiler window")
    p.add_argument("--trace-steps", type=whole_number(1, 10**6), default=5, metavar="N",
                   help="steps in the profiler window (default 5)")
    p.add_argument("--warmup-steps", type=whole_number(0), default=3, metavar="N",
                   help="steps counted as warmup before steady state (default 3)")
    gloo = p.add_mutually_exclusive_group()
    gloo.add_argument("--trace-gloo", action="store_true",
                      help="run the profiler window in gloo (CPU) distributed jobs (the "
                      "default; kept for scripts that name it)")
    gloo.add_argument("--no-trace-gloo", action="store_true",
                      help="no profiler window in gloo (CPU) distributed jobs (torch's gloo "
                      "teardown aborts a job at exit now and then, with or without it)")
    p.add_argument("--trace-no-shapes", action="store_true",
                   help="the profiler window records no input shapes: torch's profiler then "
                   "holds no tensors while it runs (less memory); small-GEMM findings judge "
                   "by time only")
    p.add_argument("--trace-memory", type=finite_float(0, 1 << 30, lo_open=True), default=None,
                   metavar="MIB",
                   help="the most the profiler window may raise the process's peak RSS by, in "
                   "MiB (default: 75%% of the larger of 64 MiB and 5%% of the RSS); the window "
                   "ends early, or records nothing, when stopping it would pass this")
    p.add_argument("--analyze-in-job", action="store_true",
                   help="each rank summarises its own trace at exit and rank 0 gathers the "
                   "summaries; the report is merged from them (see below)")
    p.add_argument("--in-job-timeout", type=finite_float(0, 86400, lo_open=True), default=60.0,
                   metavar="S",
                   help="with --analyze-in-job: the most seconds a rank's exit waits for the "
                   "other ranks' summaries (default 60)")
    p.add_argument("--probe", action="store_true", help="enable the agent's runtime checks")
    p.add_argument("--timing-only", action="store_true",
                   help="count and time the steps only (phases, steady steps, items per step): "
                   "no runtime checks, no profiler window, no split of a step into forward, "
                   "backward, optimizer and data, so that the agent's cost per step does not "
                   "depend on what the program does; for timing two versions of a program "
                   "against each other (fastenough ab times its runs this way, all but each "
                   "side's first). The report has no findings of the checks and says so")
    p.add_argument("--no-nvml", action="store_true", help="do not sample NVIDIA devices")
    p.add_argument("--no-npu-smi", action="store_true", help="do not sample Ascend devices")
    p.add_argument("--no-history", action="store_true", help="do not add a row to runs.db")
    p.add_argument("--require-complete", action="store_true",
                   help="exit 4 when the command succeeded but the measurement was incomplete "
                   "(for scripts and CI that must not take a blind run for a clean one)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", metavar="FILE",
                     help="write the fastenough.report/1 JSON to FILE; `-` prints it on "
                     "stdout and moves the command's stdout to stderr")
    fmt.add_argument("--md", action="store_true", help="print the report as Markdown")
    fmt.add_argument("--quiet", action="store_true",
                     help="no terminal report: on stderr only the line with the command's "
                     "exit status and the run directory (and what went wrong, if anything)")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")
    p.set_defaults(func=run)


def _parse_command(args: argparse.Namespace) -> list[str]:
    cmd = list(args.command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no command given: fastenough run [options] -- COMMAND ...")
    return cmd


def _write_json(outcome, dest: str) -> None:
    """report.json's content (the core's text) to `dest`."""
    text = outcome.report_text
    if dest == "-":
        sys.stdout.write(text)
        return
    from fastenough.errors import FastenoughError
    from fastenough.outputs.output_file import write_output

    try:
        write_output(dest, text, what="--json")
    except FastenoughError as e:  # the run happened: its status stands, report.json is kept
        sys.stderr.write(f"fastenough: {visible(e)}; report.json is in the run directory\n")


def _view(outcome):
    """The view the run's end built once (report.md and report.html format it too);
    built here only where that failed, so that its error is the one shown."""
    if outcome.view is not None:
        return outcome.view
    from fastenough.render.view.build import build_view
    from fastenough.report import load

    return build_view(outcome.typed or load(outcome.report_text), outcome.run_dir)


def _not_measured(outcome) -> str | None:
    """What to say instead of a report when the program failed before fastenough could
    measure anything: it could not start (`python missing.py`: python's own exit 2
    before the script's first line), or it failed before importing torch / before the
    agent loaded (no step, no phase). None when there is a report worth showing.
    Reads the typed report (outcome.typed)."""
    report = outcome.typed
    m = report.measurement if report is not None else None
    if m is None:
        return None
    codes = {r.code for r in m.reasons}
    if outcome.exit_status == 0 or outcome.signal or m.status != "blind" or \
            not codes & {"no-torch", "no-agent"} or m.steady_steps:
        return None
    command = shlex.join(report.run.command if report.run else ())
    if any(a.main_started is False for a in report.meta.agents or ()):
        return (f"the program could not start: `{command}` exited with status "
                f"{outcome.exit_status} before any of its code ran (its own message is above); "
                "nothing was measured, so there is no report to show")
    what = ("before it imported torch" if "no-torch" in codes
            else "and none of its processes was a Python that loaded fastenough's agent")
    return (f"`{command}` failed with status {outcome.exit_status} {what} (its own message "
            "is above); nothing was measured, so there is no report to show")


def _unwritten_lines(outcome, shown: bool) -> list[str]:
    """What could not be written after the program ran, each claim true of this run:
    the run directory's files (a full disk), then the history row (runs.db full,
    damaged, or no file). `shown`: the report was printed in this run's output."""
    from fastenough.supervisor.session import HISTORY_ROW

    rd = visible(outcome.run_dir)
    history = [u for u in outcome.unwritten if u.startswith(HISTORY_ROW)]
    files = [u for u in outcome.unwritten if u not in history]
    missing = [n for n in ("report.json", "report.md", "report.html")
               if any(u.startswith(n + " ") for u in files)]
    report_json = outcome.report_text is not None and "report.json" not in missing
    lines = []
    if files:
        line = f"not written: {visible('; '.join(files))}"
        if "report.json" in missing:
            if shown:
                line += "; the report printed here is the only copy"
            line += (f"; once there is room, `fastenough report {rd} --reanalyze -o "
                     f"{rd}/report.json` writes it")
        elif missing:
            line += "; once there is room, " + ", ".join(
                f"`fastenough report {rd} -o {rd}/{n}`" for n in missing) + " writes it"
        lines.append(line)
    if history:
        kept = f"its report is in {rd}/report.json" if report_json else f"the run directory is {rd}"
        lines.append(f"not written: {visible('; '.join(history))}; `fastenough history` will "
                     f"not list this run; {kept}")
    return lines


def run(args: argparse.Namespace) -> int:
    cmd = _parse_command(args)
    if args.json is not None and args.json != "-" and args.json.startswith("-"):
        raise UsageError(f"--json needs a FILE or `-`, got {args.json!r}")

    if args.timing_only:
        for flag, given in (("--probe", args.probe), ("--analyze-in-job", args.analyze_in_job)):
            if given:
                raise UsageError(f"{flag} needs the checks or the profiler window, which "
                                 "--timing-only turns off; drop one of the two")

    from fastenough.supervisor.session import RunOptions, execute

    agent_opts = {
        "trace": not args.no_trace,
        "trace_steps": args.trace_steps,
        "warmup_steps": args.warmup_steps,
        "probe": args.probe,
        "trace_gloo": not args.no_trace_gloo,
        "trace_shapes": not args.trace_no_shapes,
    }
    if args.timing_only:
        # No profiler window either: meta.json's agent_opts says what ran.
        agent_opts.update(timing_only=True, trace=False, probe=False)
    if args.trace_memory is not None:
        agent_opts["trace_memory_mib"] = args.trace_memory
    if args.analyze_in_job:
        agent_opts.update(analyze_in_job=True, in_job_timeout=args.in_job_timeout)
    opts = RunOptions(
        cmd=cmd,
        run_dir=args.run_dir,
        hz=args.hz,
        agent_opts=agent_opts,
        nvml=not args.no_nvml,
        npu_smi=not args.no_npu_smi,
        history=not args.no_history,
        child_stdout_to_stderr=args.json == "-",
    )
    outcome = execute(opts)
    report = outcome.report_text  # None: no report was made
    err = sys.stderr
    not_measured = _not_measured(outcome)
    if not_measured and args.json:
        _write_json(outcome, args.json)
    if not_measured:
        err.write(f"fastenough: {visible(not_measured)}\n")
    elif report is None:
        err.write(f"fastenough: no report: {visible(outcome.report_error)}\n")
    elif args.json:
        _write_json(outcome, args.json)
    elif args.md:
        from fastenough.render.markdown import view_to_markdown

        sys.stdout.write(view_to_markdown(_view(outcome)))
    elif not args.quiet:
        try:
            from rich.console import Console

            from fastenough.render.terminal import print_view

            # The command's own output went to stdout; the report goes to stderr
            # so that `fastenough run -- cmd > out` keeps out clean.
            print_view(_view(outcome), console=Console(stderr=True))
        except Exception as e:  # noqa: BLE001 - report.json is written; rendering is extra
            err.write(f"fastenough: report not rendered ({type(e).__name__}: {visible(e)})\n")
    if args.analyze_in_job:
        from fastenough.supervisor.in_job import stderr_note

        note = stderr_note(outcome.typed)
        if note:
            err.write(f"fastenough: {visible(note)}\n")
    if outcome.skipped:
        err.write("fastenough: files of the run directory skipped unread (the command left "
                  f"something else there): {visible('; '.join(outcome.skipped))}\n")
    shown = report is not None and not not_measured and (
        args.json == "-" or args.md or (not args.quiet and not args.json))
    for line in _unwritten_lines(outcome, shown):
        err.write(f"fastenough: {line}\n")
    status = outcome.exit_status
    how = f"signal {outcome.signal}" if outcome.signal else f"status {status}"
    err.write(f"fastenough: command exited with {how}; run directory {visible(outcome.run_dir)}\n")
    m = outcome.typed.measurement if outcome.typed is not None else None
    # --timing-only turned the checks off on purpose: that alone leaves the
    # timing complete (the report's first lines still say no check ran).
    from fastenough.report.timing_only import CHECKS_OFF, timing_status

    measured = timing_status(m)
    reasons = [r for r in m.reasons if r.code != CHECKS_OFF] if m is not None else []
    if args.timing_only and not not_measured:
        err.write("fastenough: --timing-only: the steps were timed and no check ran, so the "
                  "report has no findings of the checks\n")
    if measured != "complete" and not not_measured:
        codes = ", ".join(r.code for r in reasons)
        err.write(f"fastenough: measurement incomplete ({measured}: {codes}); see the first "
                  "lines of the report\n")
        if args.require_complete and status == 0:
            from fastenough.errors import EXIT_MEASUREMENT_INCOMPLETE

            return EXIT_MEASUREMENT_INCOMPLETE
    return status
