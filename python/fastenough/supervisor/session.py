"""One `fastenough run`: run directory -> sampler -> child -> report -> history.

Every step after the child started is guarded so that the report is written
whatever happened to the child (crash, signal) or to one part of the analysis.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from fastenough import __version__
from fastenough.store import run_dir as _rd
from fastenough.supervisor import devices as _devices
from fastenough.supervisor import run_processes as _rp
from fastenough.supervisor import spawn as _spawn

if TYPE_CHECKING:
    from fastenough.render.view.model import ReportView
    from fastenough.report.model import Report


@dataclass
class RunOptions:
    cmd: list[str]
    cwd: str = field(default_factory=os.getcwd)
    run_dir: str | None = None
    hz: float = 2.0
    agent_opts: dict = field(default_factory=dict)
    nvml: bool = True
    npu_smi: bool = True
    history: bool = True
    # The child's stdout goes to stderr (`run --json -`: stdout is the report's).
    child_stdout_to_stderr: bool = False


@dataclass
class RunOutcome:
    run_dir: Path
    exit_status: int
    signal: int | None
    # report.json's text as the core wrote it (the one writer of the document): --json
    # writes it as it is; None when there is no report.
    report_text: str | None
    report_error: str | None
    # What could not be written after the program ran (a full disk): "report.json
    # (No space left on device)". The run stands; `report --reanalyze` redoes it.
    unwritten: list[str] = field(default_factory=list)
    # Files of the run directory that were skipped unread because the program left
    # something else there (a FIFO, a device, a huge sparse file): "steps.jsonl: not
    # a regular file (a FIFO or pipe); skipped".
    skipped: list[str] = field(default_factory=list)
    # The report read once into the typed model, and the view built once from it:
    # report.md, report.html and the terminal report format this one view. None
    # without a report, or when it could not be read or built (report.json stands).
    typed: Report | None = None
    view: ReportView | None = None


class _Writes:
    """Every file the supervisor writes once the program has run: a failure is
    noted and logged, never raised, so that the program's exit status passes
    through whatever the disk does."""

    def __init__(self, log) -> None:
        self.log = log
        self.failed: list[str] = []

    def attempt(self, name: str, write) -> bool:
        try:
            write()
            return True
        except Exception as e:  # noqa: BLE001 - OSError, sqlite3's "disk is full", a renderer bug
            why = e.strerror if isinstance(e, OSError) and e.strerror else f"{e}"
            self.failed.append(f"{name} ({why})")
            self.log(f"{name} not written: {type(e).__name__}: {e}")
            return False


# How an unwritten history row is named in RunOutcome.unwritten.
HISTORY_ROW = "the history row in .fastenough/runs.db"


def _now_ns() -> int:
    return time.time_ns()


# Trace bytes above which the analysis after the run shows a progress bar.
PROGRESS_MIN_BYTES = 100 * 1024 * 1024


def trace_files(run_dir: Path) -> list[Path]:
    return sorted(p for p in (run_dir / "trace").glob("*.json*")
                  if p.is_file() and not p.name.endswith(".callsites.json"))


def analyze_run_dir_text(run_dir: Path, show_progress: bool | None = None,
                         rank_summaries: list[str] | None = None, in_job: dict | None = None,
                         ended: tuple[int | None, int | None, int] | None = None,
                         cross_reference_lint: bool = False,
                         earlier_runs: list[tuple[int | None, str, str | None]] | None = None
                         ) -> str:
    """The report of a run directory as the core writes it, whole (its one
    writer); a progress bar on stderr while large traces load (None: when stderr
    is a terminal and the traces are large, or FASTENOUGH_FORCE_PROGRESS=1).
    rank_summaries: the ranks' own summaries (run --analyze-in-job), merged
    instead of reading the traces; in_job: what run --analyze-in-job chose
    (run_details.in_job); ended: (exit status, signal, wall ns) when meta.json
    could not be rewritten at the program's end; cross_reference_lint: lint the
    program's files and mark the findings the source shows too (the report's
    "lint", cpp/fastenough/rundir/lint_cross_reference.h); earlier_runs: (id,
    run dir, started at) of earlier runs of the same command, newest first,
    whose findings the report compares (its "repeatability")."""
    from fastenough import _core

    kwargs: dict = {"rank_summaries": rank_summaries or [], "in_job": in_job, "ended": ended,
                    "cross_reference_lint": cross_reference_lint,
                    "earlier_runs": list(earlier_runs or [])}
    traces = [] if rank_summaries else trace_files(run_dir)
    if show_progress is None:
        big = sum(p.stat().st_size for p in traces) >= PROGRESS_MIN_BYTES
        show_progress = (big and sys.stderr.isatty()) or \
            os.environ.get("FASTENOUGH_FORCE_PROGRESS") == "1"
    if not show_progress or not traces:
        return _core.analyze_run_dir(str(run_dir), **kwargs)
    from fastenough.render.progress import files_progress

    with files_progress("analysing traces", len(traces)) as update:
        return _core.analyze_run_dir(str(run_dir), progress=update, **kwargs)


def _analyze(run_dir: Path, log, in_job: bool = False,
             ended: tuple[int | None, int | None, int] | None = None,
             earlier: list | None = None) -> tuple[str | None, str | None]:
    """The report's text, or None and why there is none."""
    from fastenough.supervisor.contained import AnalysisCrashed, call_contained

    whole = {"ended": ended, "cross_reference_lint": True, "earlier_runs": earlier}
    try:
        # In a forked child: a crash of the core costs the report, never the
        # program's exit status (supervisor/contained.py).
        if not in_job:
            return call_contained(lambda: analyze_run_dir_text(run_dir, **whole)), None
        from fastenough.supervisor.in_job import choose

        choice = choose(run_dir, trace_files(run_dir))
        log(f"in-job analysis: {json.dumps(choice.details)}")
        return call_contained(lambda: analyze_run_dir_text(
            run_dir, rank_summaries=choice.summaries, in_job=choice.details, **whole)), None
    except AnalysisCrashed as e:
        log(f"analysis crashed: {e}")
        return None, f"{e}: `fastenough report {run_dir} --reanalyze` analyses it again"
    except Exception as e:  # noqa: BLE001 - the run happened; say why there is no report
        log(f"analysis failed: {type(e).__name__}: {e}")
        return None, f"{type(e).__name__}: {e}"


def summary_row(report: Report | None, meta: dict, run_dir: Path) -> dict:
    """The run's row in the history (runs.db); `report`: the typed one."""
    steps = report.steps if report is not None else None
    findings = report.findings if report is not None else ()
    start = meta.get("start_wall_ns")
    end = meta.get("end_wall_ns")
    return _rd.utf8_safe({
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start / 1e9))
        if start
        else None,
        "command": shlex.join(meta.get("command") or []),
        "exit_status": meta.get("exit_status"),
        "wall_s": (end - start) / 1e9 if start and end else None,
        "steady_steps_per_s": steps.steady_steps_per_s if steps else None,
        "items_per_s": steps.items_per_s if steps else None,
        "top_finding": findings[0].code if findings else None,
        "run_dir": str(run_dir),
        "measurement": report.measurement.status if report and report.measurement else None,
    })


def execute(opts: RunOptions) -> RunOutcome:
    env = dict(os.environ)
    # Fail like a shell before anything is created when the command cannot run.
    _spawn.check_command(opts.cmd, env)

    try:
        run_dir = _rd.new_run_dir(opts.cwd, opts.run_dir)
        (run_dir / "agent").mkdir(exist_ok=True)
        (run_dir / "trace").mkdir(exist_ok=True)
        log = _rd.Log(run_dir / "supervisor.log")
    except OSError as e:
        from fastenough.errors import OutputError
        from fastenough.visible import visible

        raise OutputError(
            f"cannot create the run directory: {e.strerror or e}: "
            f"{visible(e.filename or opts.cwd)}") from None
    log(f"fastenough {__version__}; run dir {run_dir}")

    boot = _spawn.boot_dir()
    if not (boot / "sitecustomize.py").exists():
        log(f"agent boot dir {boot} has no sitecustomize.py: running without the agent")
        boot = None

    meta: dict = {
        "schema": "fastenough.meta/1",
        "fastenough_version": __version__,
        "command": list(opts.cmd),
        "cwd": str(Path(opts.cwd).resolve()),
        "git": _rd.git_info(opts.cwd),
        "host": _rd.host_name(),
        "supervisor_python": sys.version.split()[0],
        "agent_opts": opts.agent_opts,
        "start_wall_ns": _now_ns(),
        "end_wall_ns": None,
        "exit_status": None,
        "signal": None,
        "interrupted": False,
    }

    sampler = None
    try:
        from fastenough import _core

        sampler = _core.Sampler(
            str(run_dir / "samples.csv"), hz=opts.hz, nvml=opts.nvml, npu_smi=opts.npu_smi
        )
        sampler.start()
        meta["sampler"] = {"hz": opts.hz, "backends": sampler.backends()}
        meta["devices"] = sampler.devices()
        meta["visible_devices"] = _devices.visible_mapping(env, meta["devices"])
    except Exception as e:  # noqa: BLE001 - a run without samples is still a run
        log(f"sampler not started: {type(e).__name__}: {e}")
        meta["sampler"] = {"hz": opts.hz, "error": f"{type(e).__name__}: {e}"}
        sampler = None
    try:
        _rd.write_json_atomic(run_dir / "meta.json", meta)
    except OSError as e:  # nothing has run yet: say so and start nothing
        if sampler is not None:
            sampler.stop()
        log.close()
        from fastenough.errors import OutputError
        from fastenough.visible import visible

        raise OutputError(f"cannot write {visible(run_dir / 'meta.json')}: "
                          f"{e.strerror or e}; the command was not started") from None
    log(f"sampler: {json.dumps(meta.get('sampler'))}")

    child_env = _spawn.child_env(env, run_dir, opts.agent_opts, boot)
    result = None
    child_pid: list[int] = []  # also the pgid of the program's process group

    def started(pid: int) -> None:
        child_pid.append(pid)
        if sampler is not None:
            sampler.set_root_pid(pid)

    try:
        result = _spawn.run_child(
            opts.cmd,
            child_env,
            opts.cwd,
            on_start=started,
            log=log,
            stdout_to_stderr=opts.child_stdout_to_stderr,
        )
    finally:
        meta["end_wall_ns"] = _now_ns()
        if sampler is not None:
            try:
                sampler.stop()
                meta["sampler"]["ticks"] = sampler.ticks
                meta["other_processes"] = sampler.other_processes()
            except Exception as e:  # noqa: BLE001
                log(f"sampler stop failed: {e}")
        if result is not None:
            meta["exit_status"] = result.exit_status
            meta["signal"] = result.signal
            meta["interrupted"] = result.interrupted
        if result is not None and result.interrupted:
            # Stopped (a time limit, a batch system): the program's processes that
            # the forwarded signal did not reach (a daemon in a session of its own)
            # are ended too, before their files are read.
            try:
                _rp.end_run_processes(run_dir, signalled_group=child_pid[0] if child_pid else None,
                                      log=log)
            except Exception as e:  # noqa: BLE001 - the report is written regardless
                log(f"ending the run's processes failed: {type(e).__name__}: {e}")
        skipped: list[str] = []
        meta["agents"] = _rd.read_agents(run_dir, skipped)
        for path in _rd.remove_temporaries(run_dir):
            log(f"removed a temporary the program's processes left: {path}")
        writes = _Writes(log)
        meta_written = writes.attempt(
            "meta.json", lambda: _rd.write_json_atomic(run_dir / "meta.json", meta))

    # The analysis reads meta.json; when it could not be rewritten at the end,
    # how the program ended is only in memory here.
    ended = None if meta_written else (meta["exit_status"], meta["signal"],
                                       meta["end_wall_ns"] - meta["start_wall_ns"])
    try:
        from fastenough.store.repeatability import earlier_runs

        # Earlier runs of the same command in this directory's history: the report
        # says which findings held in all of them (issue 37, item 10).
        earlier = earlier_runs(opts.cwd, shlex.join(meta.get("command") or []), run_dir,
                               meta.get("exit_status"))
    except Exception as e:  # noqa: BLE001 - the report stands without the comparison
        log(f"repeatability note skipped: {type(e).__name__}: {e}")
        earlier = []
    report_text, error = _analyze(run_dir, log, bool(opts.agent_opts.get("analyze_in_job")),
                                  ended, earlier)
    built: dict = {}
    if report_text is not None:
        from fastenough.report import load

        # Read once into the typed Report: the view, `run`'s own lines, the history row
        # and the files the run directory skipped read it (the text stays for --json).
        try:
            built["typed"] = load(report_text, str(run_dir / "report.json"))
        except Exception as e:  # noqa: BLE001 - report.json stands; rendering is extra
            built["error"] = e
            log(f"report not read: {type(e).__name__}: {e}")
        details = built["typed"].run_details if "typed" in built else None
        skipped += _rd.skipped_files(list(details.problems) if details else [])
    skipped = list(dict.fromkeys(skipped))
    for note in skipped:
        log(f"run directory: {note}")
    if report_text is not None:
        writes.attempt("report.json", lambda: _rd.write_text_atomic(run_dir / "report.json",
                                                                    report_text))

        def the_view() -> ReportView:
            # Read once and viewed once: the Markdown, the HTML page and the terminal
            # report (cli/run.py) format this one view. A failure raises in each
            # write that needs it, as a renderer's would.
            if "typed" not in built:
                raise built["error"]
            if "view" not in built:
                from fastenough.render.view.build import build_view

                built["view"] = build_view(built["typed"], run_dir)
            return built["view"]

        def markdown() -> None:
            from fastenough.render.markdown import view_to_markdown

            _rd.write_text_atomic(run_dir / "report.md", view_to_markdown(the_view()))

        def page() -> None:
            from fastenough.render.html import view_to_html

            _rd.write_text_atomic(run_dir / "report.html", view_to_html(the_view()))

        writes.attempt("report.md", markdown)
        writes.attempt("report.html", page)

    if opts.history:
        def history() -> None:
            from fastenough.store.history import HistoryDB

            db = HistoryDB(Path(opts.cwd).resolve() / ".fastenough" / "runs.db")
            try:
                db.add_run(summary_row(built.get("typed"), meta, run_dir))
            finally:
                db.close()

        writes.attempt(HISTORY_ROW, history)
    log.close()
    return RunOutcome(run_dir, result.exit_status, result.signal, report_text, error,
                      writes.failed, skipped, built.get("typed"), built.get("view"))
