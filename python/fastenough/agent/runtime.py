"""The agent of one process of a `fastenough run` job: the facade over its rooms.

  steps.py           StepLog: the steps, buffered, written to steps.jsonl
  phases.py          PhaseMachine: startup/warmup/steady/profile/tail, per mode
  profile_window.py  ProfileWindow: the torch.profiler window over steady steps
  sources/           where steps come from (model calls, DataLoader, optimizer,
                     fastenough.step()) and the engine that makes them steps;
                     the mode watch (train/eval)
  module_hooks.py    hooks on the program's modules, kept out of its pickles
  memory.py          device and host memory at edges
  process_record.py  agent/<pid>.json
  checks/            the runtime waste checks (their own registry)
  in_job.py          run --analyze-in-job: the rank's trace summarised at exit,
                     gathered to rank 0

One Agent per process (created by bootstrap.boot()). Importing this module never
imports torch; torch is handed over once the program imports it. Rules it keeps:
  * the hot loop only appends to a list: no synchronisation, no I/O per step;
  * phase edges wait for the device, and only for a backend that the program
    initialised itself (torch.cuda.is_initialized());
  * every hook body is guarded: the first internal error is logged once to
    <run dir>/agent.log and the agent switches itself off; the program goes on.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import traceback

from fastenough.agent import batch_size as bs
from fastenough.agent import compile_info, module_hooks, own_cost, process_record
from fastenough.agent.foreign_profiler import ForeignProfilerWatch
from fastenough.agent.memory import rss_bytes
from fastenough.agent.model_swap import ModelSwapWatch
from fastenough.agent.own_cost import OwnCost
from fastenough.agent.phases import PhaseMachine, now
from fastenough.agent.profile_window import ProfileWindow
from fastenough.agent.run_dir_writer import RunDirWriter
from fastenough.agent.sources.dataloader import DataLoaderSource
from fastenough.agent.sources.engine import StepEngine
from fastenough.agent.sources.model_calls import ModelCallSource
from fastenough.agent.sources.optimizer import OptimizerSource
from fastenough.agent.step_timer import StepTimer, model_of
from fastenough.agent.steps import (
    FLUSH_INTERVAL_NS,
    SRC_DATALOADER,
    SRC_EXPLICIT,
    SRC_MODULE,
    SRC_OPTIMIZER,
    StepLog,
)
from fastenough.agent.window_plan import WindowPlan

_AGENT: Agent | None = None
RECORD_INTERVAL_NS = 1_000_000_000


def get_agent() -> Agent | None:
    return _AGENT


def set_agent(agent: Agent | None) -> None:
    global _AGENT
    _AGENT = agent


def _env_int(name: str) -> int | None:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


def _no_live_call(*args) -> None:
    return None


class AgentTestFailure(RuntimeError):
    """Raised on purpose when opts["_test_fail"] names a hook (tests only)."""


class Agent:
    def __init__(self, run_dir: str, opts: dict, role: str, boot_mono: int, boot_wall: int):
        self.dir = RunDirWriter(run_dir)
        if opts.get("timing_only"):
            from fastenough.agent.bootstrap import TIMING_ONLY_OFF

            opts = dict(opts, **TIMING_ONLY_OFF)
        self.opts = opts
        self.timing_only = bool(opts.get("timing_only"))
        self.role = role
        self.pid = os.getpid()
        self.rank = _env_int("RANK")
        self.rank_or_0 = self.rank if self.rank is not None else 0
        self.local_rank = _env_int("LOCAL_RANK")
        self.world_size = _env_int("WORLD_SIZE")
        self.boot = (boot_mono, boot_wall)
        self.enabled = True  # False after an internal error, in forked children, at exit
        self.error: str | None = None
        self.torch = None
        self.torch_watch = None  # torch_import.TorchImportWatch, set by bootstrap.boot()
        self.activated: tuple[int, int] | None = None
        self.finished = False
        self.main_ident = threading.get_ident()
        self.handles: list = []  # torch RemovableHandles of global hooks
        self._patches: list = []  # (owner, attribute, original)
        self._test_fail = opts.get("_test_fail")
        self._trace = bool(opts.get("trace"))
        self.checks = None  # the runtime checks' registry (agent/checks), once installed
        self._checks_step = None  # its on_step_end, bound once
        # Its own cost per step, and the guard that switches it off when that grows.
        self.own = OwnCost(self, opts.get("_test_own_cost") or own_cost.planted_by_env())
        self.steps = StepLog(self.dir, self.rank_or_0, self.pid,
                             int(opts.get("flush_steps", 256)))
        self.phases = PhaseMachine(self, opts)
        self.window = ProfileWindow(self.dir, self.rank_or_0, self.pid,
                                    max(1, int(opts.get("trace_steps", 5))),
                                    with_stack=bool(opts.get("trace_stack", True)),
                                    shapes=bool(opts.get("trace_shapes", True)))
        if opts.get("trace_memory_mib"):
            self.window.memory_budget = int(float(opts["trace_memory_mib"]) * (1 << 20))
        self.foreign_profiler = ForeignProfilerWatch(self)
        self.window_plan = WindowPlan(self)
        self.window.guard = self.foreign_profiler
        self.engine = StepEngine(self)
        self.model_swap = ModelSwapWatch(self, self._model_freed)
        self.model_calls = ModelCallSource(self)
        self.dataloader = DataLoaderSource(self)
        self.optimizer = OptimizerSource(self)
        self.timer = StepTimer(self)
        self.outputs = None  # output_recorder.OutputRecorder, on the first fastenough.record
        self._record_written_ns = 0  # when agent/<pid>.json was last written at an edge
        self.in_job = None  # in_job.InJobAnalysis, with run --analyze-in-job
        self._terminating = False  # finish() called by SIGTERM: no in-job wait then
        if opts.get("analyze_in_job") and role in ("main", "rank"):
            from fastenough.agent.in_job import InJobAnalysis

            self.in_job = InJobAnalysis(self)

    # ------------------------------------------------------------------ start
    def start(self) -> None:
        os.makedirs(self.dir.file("agent"), exist_ok=True)
        atexit.register(self.finish)
        if self.role in ("main", "rank") and hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork_in_child)

    def _after_fork_in_child(self) -> None:
        # A forked child (DataLoader worker, multiprocessing.Process) inherits our
        # state; it must never write steps or phases, and atexit does not run there
        # (multiprocessing ends children with os._exit), so record it right away.
        try:
            self.enabled = False
            for hook in (self.model_calls.step_hook, self.dataloader.hook, self.optimizer.hook):
                if hook is not None:
                    hook.deferring = False  # every call to Python, which returns
            self.role = "worker"
            self.pid = os.getpid()
            self.steps.clear()
            self.window._prof = None  # the parent's profiler is not ours to stop
            self.write_agent_json()
        except Exception:  # noqa: BLE001 - never disturb the child
            pass

    def on_torch_imported(self, torch) -> None:
        try:
            self._activate(torch)
        except Exception:  # noqa: BLE001
            self.fail("activate")

    def _activate(self, torch) -> None:
        self.torch = torch
        compile_info.bind(torch)
        self.activated = now()
        if self.role not in ("main", "rank"):
            self.write_agent_json()
            return
        self.check_fail("activate")
        module_hooks.install(torch)
        self.phases.begin_startup(self.boot)
        if self._trace:
            self.foreign_profiler.install(torch)
        self.optimizer.install(torch)
        self.model_calls.install()
        self.dataloader.install(torch)
        self._install_sigterm()
        self.write_agent_json()
        self._install_checks()

    def _install_checks(self) -> None:
        # Runtime waste checks (agent/checks): their own hooks on root module calls;
        # told about steps, phase ends and the steady window below.
        if not self.opts.get("checks", True):
            return
        try:
            from fastenough.agent import checks

            self.checks = checks.install(self.dir.path, self.opts, at_exit=False)
            self.checks.own = self.own  # its hooks' time is the agent's own cost
            self.checks.profiling = lambda: self.window.active
            self._checks_step = self.checks.on_step_end
            self.checks.on_eval_stretch = self._loop_without_backward
        except Exception:  # noqa: BLE001
            self.checks = None
            self._checks_step = None

    def _install_sigterm(self) -> None:
        import signal

        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return  # the program handles SIGTERM itself (and usually exits through atexit)

        def on_term(signum, frame):
            self._terminating = True
            self.finish()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)  # die of the signal, as without us

        signal.signal(signal.SIGTERM, on_term)
        self._patches.append((signal, "SIGTERM", signal.SIG_DFL))

    def patch(self, owner, attr: str, new) -> None:
        """Replace owner.attr, to be put back by _uninstall."""
        self._patches.append((owner, attr, getattr(owner, attr)))
        setattr(owner, attr, new)

    def _uninstall(self) -> None:
        try:  # noqa: SIM105
            self.timer.end(done=False)
        except Exception:  # noqa: BLE001, S110
            pass
        for h in self.handles:
            try:  # noqa: SIM105
                h.remove()
            except Exception:  # noqa: BLE001, S110
                pass
        self.handles = []
        try:  # noqa: SIM105
            self.model_calls.remove()
        except Exception:  # noqa: BLE001, S110
            pass
        for owner, attr, orig in reversed(self._patches):
            try:
                if attr == "SIGTERM":
                    owner.signal(owner.SIGTERM, orig)
                else:
                    setattr(owner, attr, orig)
            except Exception:  # noqa: BLE001, S110
                pass
        self._patches = []

    # ------------------------------------------------------------------ failure
    def fail(self, where: str) -> None:
        """First internal error: log it once, switch off, leave the program alone."""
        if self.error is not None:
            return
        self.enabled = False
        exc = sys.exc_info()[1]
        self.error = f"{where}: {type(exc).__name__}: {exc}" if exc else where
        try:  # noqa: SIM105
            self.dir.append_log(
                f"fastenough agent (pid {os.getpid()}) disabled after an internal error in "
                f"{where}:\n{traceback.format_exc()}\n" if exc or not where.startswith("own cost:")
                else f"fastenough agent (pid {os.getpid()}) switched itself off: {where}\n"
            )
        except Exception:  # noqa: BLE001, S110
            pass
        try:
            self._uninstall()
            self.window.abandon()
        except Exception:  # noqa: BLE001, S110
            pass
        try:  # noqa: SIM105
            self.write_agent_json()
        except Exception:  # noqa: BLE001, S110
            pass

    def check_fail(self, where: str) -> None:
        if self._test_fail == where:
            raise AgentTestFailure(f"injected failure in {where}")

    # ------------------------------------------------------------------ exit
    def finish(self) -> None:
        """At exit (atexit, SIGTERM): close the last step and phase, write everything."""
        if self.finished:
            return
        self.finished = True
        if os.getpid() != self.pid:
            return
        try:
            if self.enabled and self.phases.phase is not None:
                self.engine.drain()
                self.enabled = False
                self.check_fail("finish")
                self.engine.finish_open(self.model_calls.last_post)
                self.phases.finish(self.steps.last_end)
        except Exception:  # noqa: BLE001
            self.enabled = True
            self.fail("finish")
        try:  # noqa: SIM105
            self.steps.flush()
        except Exception:  # noqa: BLE001, S110
            pass
        if self._terminating and self.checks is not None:
            self.checks.terminating = True  # no probe forwards while being killed
        self._checks_call("at_exit")
        if self.outputs is not None:
            try:  # the recorded outputs not yet written: before the agent record names them
                self.outputs.close()
            except Exception:  # noqa: BLE001 - never the program's exit status
                self.outputs.fail()
        try:
            self._uninstall()
            self.write_agent_json()
        except Exception:  # noqa: BLE001, S110
            pass
        if self.in_job is not None and not self._terminating:
            # Last: the program's exit work and every file of the agent are done.
            self.in_job.run()

    def output_recorder(self):
        """The recorder of fastenough.record, created on first use."""
        if self.outputs is None:
            from fastenough.agent.output_recorder import OutputRecorder

            sub = ["outputs"] + ([f"rank{self.rank}"] if self.rank is not None else [])
            self.outputs = OutputRecorder(self.dir.file(*sub), self.dir.append_log)
        return self.outputs

    def write_agent_json(self) -> None:
        process_record.write(self)

    def steps_deferred(self) -> int:
        return (self.model_calls.deferred_calls() + self.dataloader.deferred_calls()
                + self.optimizer.deferred_calls())

    # ------------------------------------------------------------------ the rooms' calls
    def on_edge(self, phase: str, edge: str, auto: bool) -> None:
        """After each phases.jsonl line: the agent record (at mode switches at
        most once a second: a loop that alternates training and evaluation
        switches phases every step), and the checks."""
        if auto:
            t = now()[0]
            if not self.phases.switching_mode or t - self._record_written_ns >= RECORD_INTERVAL_NS:
                self._record_written_ns = t
                self.write_agent_json()
        if edge == "end":
            if phase == "steady":
                self._checks_call("on_steady_end")
            # Not while the profiler records: the census walks every object of the
            # process, and under the profiler's Python tracer that walk became
            # a gigabyte of trace events (a window that goes on across a mode
            # switch ends its "profile" phase while still on).
            if not self.window.active:
                self._checks_call("on_phase_end", phase, self.phases.mode)
        elif phase == "steady":
            self._checks_call("on_steady_begin", self.phases.mode)
            if auto:
                self.timer.begin(self.phases.mode, model_of(self))

    def _checks_call(self, name: str, *args) -> None:
        c = self.checks
        if c is not None:
            try:  # noqa: SIM105 - the registry guards itself; this guards the import
                getattr(c, name)(*args)
            except Exception:  # noqa: BLE001, S110
                pass

    def checks_step(self, duration: int, items, end_ns: int | None = None,
                    mode: str | None = None) -> None:
        on_step_end = self._checks_step
        if on_step_end is not None:
            try:  # noqa: SIM105 - the registry guards itself; this guards the agent
                on_step_end(duration, items, end_ns, mode)
            except Exception:  # noqa: BLE001, S110
                pass

    def checks_steps(self, durations: list) -> None:
        self._checks_call("on_steps_end", durations)

    @property
    def window_pending(self) -> bool:
        return self._trace and not self.window.done

    def start_window(self) -> tuple[int, int]:
        self.check_fail("profile")
        if not self.window_plan.may_start():
            return now()  # steps without model work: the window waits (window_plan.py)
        if self.in_job is not None and not self.in_job.window_agreed(self.steps.index):
            return now()  # the other ranks are not there yet (in_job.py)
        self.window.done = True
        self.window.end_calibration()
        skip = self._window_unsafe() or self.window.unstoppable_step_refused(rss_bytes())
        if skip:
            self.window.info = {"trace": None, "skipped": skip}
            return now()
        refused = self.window.second_window_refused(self.phases.last_steady_ns)
        if refused:
            # A second window (window_plan.py) that the memory bound has no room
            # for: the first one's trace stays, and the report says why.
            info = self.window.info if self.window.info is not None else {"trace": None}
            info["not_moved"] = ("the window did not run again on the "
                                 f"{self.phases.mode} steps: {refused}")
            self.window.info = info
            return now()
        self.phases.switch("profile")
        self.window.start(self.torch, self.steps.index)
        self.window.info["mode"] = self.phases.mode
        if self.window_plan.moved:
            self.window.info["moved"] = self.window_plan.moved
        self.window_plan.on_window_started(self.phases.mode)
        return now()

    def _window_unsafe(self) -> str | None:
        """Why the profiler window must not run in this process, or None.

        gloo jobs get the window by default (issue 37). It was skipped on them
        because torch's profiler was seen to make a gloo job abort at exit
        ("terminate called without an active exception", about one run in
        four). That abort is torch's gloo teardown (a joinable std::thread
        destroyed at interpreter exit after destroy_process_group), seen in
        plain runs too (tests/real/real_pairs.py: 2 of 16 on a loaded machine);
        with torch 2.13 and a plain torch.profiler window over 5 steps of a
        4-rank DDP job, 0 of 32 runs aborted here (12 with a barrier before
        destroy_process_group, 20 without), and 0 of 10 without the profiler.
        fastenough run --no-trace-gloo skips it as before."""
        foreign = self.foreign_profiler.active_session(self.torch)
        if foreign is not None:
            return (f"the profiler window was skipped: {foreign}; two profiler sessions in "
                    "one process crash torch, so the program's own profile is left alone")
        dist = sys.modules.get("torch.distributed")
        try:
            gloo = (dist is not None and dist.is_available() and dist.is_initialized()
                    and dist.get_backend() == "gloo")
        except Exception:  # noqa: BLE001 - no default process group
            gloo = False
        if gloo and not self.opts.get("trace_gloo", True):
            return ("the profiler window was skipped in this gloo job (fastenough run "
                    "--no-trace-gloo)")
        return None

    def stand_down_window(self, why: str) -> None:
        """The program starts a profiler of its own (foreign_profiler.py): our
        window stops now, before theirs starts (what it recorded is kept; the
        profile phase ends at the next step boundary), or never starts."""
        window = self.window
        try:
            if window.active:
                window.stopped_early = why
                window.stop(self.steps.index - 1)
            elif not window.done:
                window.done = True
                window.info = {"trace": None, "skipped": f"the profiler window was skipped: {why}"}
        except Exception:  # noqa: BLE001
            self.fail("profile")

    def stop_window(self) -> tuple[int, int]:
        self.window.stop(self.steps.index - 1)
        phases = self.phases
        return phases.switch("steady" if phases.mode in phases.steady_modes else "warmup")

    def recorder_of(self, source: int):
        if source == SRC_MODULE:
            return self.model_calls.step_hook
        if source == SRC_DATALOADER:
            return self.dataloader.hook
        if source == SRC_OPTIMIZER:
            return self.optimizer.hook
        return None

    def any_recorder(self) -> bool:
        return (self.model_calls.step_hook is not None or self.dataloader.hook is not None
                or self.optimizer.hook is not None)

    def recorder(self, live_pre):
        """A native recorder (step_hook.py) that calls live_pre for live calls:
        once a second, or when it holds as many steps as a flush writes."""
        from fastenough.agent import step_hook

        calls = self.model_calls
        hook = step_hook.make(live_pre if live_pre is not None else _no_live_call, record=True,
                              batch_size=lambda b: bs.batch_size(b, calls.batch_dim),
                              main_thread=self.main_ident)
        if hook is not None:
            hook.max_age_ns = FLUSH_INTERVAL_NS
            hook.capacity = self.steps.flush_every
            hook.grad_enabled = self.torch.is_grad_enabled
        return hook

    def may_defer(self, source: int) -> bool:
        """Steps of `source` may go to a native recorder: it is the step source, the
        phase is steady with no change to come (the profiler window done or off),
        the checks' sync-watch sample is over, and the step timer has timed this
        mode's first steady steps."""
        checks = self.checks
        return (self.enabled and self.engine.current == source and self.phases.quiet
                and (checks is None or (checks.sampling and not checks.sync.active))
                and not self.timer.active and not self.timer.wants(self.engine.mode)
                and bool(self.opts.get("defer_steps", True)))

    def may_watch(self) -> bool:
        """The main model's calls, when they make no steps, may go to its native
        hook, which then only watches the mode (and sends the checks' sample)."""
        checks = self.checks
        return (self.enabled and (checks is None or (checks.sampling and not checks.sync.active))
                and bool(self.opts.get("defer_steps", True)))

    def observe_mode(self, mode: str) -> None:
        """The program's mode read at a step event (a DataLoader batch): a
        different mode switches the phases here."""
        if mode != self.engine.mode:
            t = now()
            self.engine.switch_mode(mode, t, first=t)

    def _model_freed(self, dead_id: int) -> None:
        """The locked main model was freed (model_swap.py; the main thread stands
        outside module calls and the agent): discover the next one."""
        self.model_calls.rediscover()
        checks = self.checks
        if checks is not None:
            checks.rediscover(dead_id)

    def _loop_without_backward(self) -> None:
        """The checks see a long stretch of model forwards with no backward in a
        mode whose steps came from optimizer.step() (evaluation after training,
        model.eval() or no_grad forgotten, so the mode still reads "train"): no
        optimizer step will end its steps, the model's calls do."""
        if not self.enabled or threading.get_ident() != self.main_ident:
            return
        try:
            if self.engine.current == SRC_OPTIMIZER:
                self.engine.fall_back(SRC_MODULE)
                self.model_calls.ensure()
        except Exception:  # noqa: BLE001
            self.fail("eval-stretch")

    def on_source_change(self, source: int) -> None:
        if source != SRC_DATALOADER:
            self.dataloader.stop_deferring()  # batches are no steps of their own now
        if source != SRC_OPTIMIZER:
            self.optimizer.stop_deferring()
        # Model calls stay watched (the mode is read there); they make no steps
        # of their own now.
        self.model_calls.set_recording(source == SRC_MODULE)

    def on_mode_change(self, mode: str) -> None:
        """Every recorder to Python: the new mode's first boundaries decide again."""
        if self.timer.active and self.timer.mode != mode:
            self.timer.end(done=False)
        self.model_calls.stop_deferring()
        self.dataloader.stop_deferring()
        self.optimizer.stop_deferring()
        self.model_calls.ensure()
        self.model_calls.set_recording(self.engine.current <= SRC_MODULE)

    # ------------------------------------------------------------------ public API
    def user_phase_edge(self, name: str, edge: str) -> None:
        if not self.enabled or os.getpid() != self.pid:
            return
        try:
            self.engine.drain()
            self.phases.write_edge(str(name), edge, auto=False)
        except Exception:  # noqa: BLE001
            self.fail("phase")

    def explicit_step(self, items, tokens) -> None:
        if not self.enabled or os.getpid() != self.pid or self.phases.phase is None:
            return
        try:
            self.engine.end_step(SRC_EXPLICIT, items, tokens)
        except Exception:  # noqa: BLE001
            self.fail("step")
