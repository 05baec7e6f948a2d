"""The agent: phases, steps, memory, profiler window and compile time of one process.

One Agent per process of a `fastenough run` job (created by bootstrap.boot()).
Importing this module never imports torch; torch is handed over by the import
hook once the program imports it. Rules it keeps:
  * the hot loop only appends to a list: no synchronisation, no I/O per step;
  * phase edges wait for the device, and only for a backend that the program
    initialised itself (torch.cuda.is_initialized());
  * every hook body is wrapped: the first internal error is logged once to
    <run dir>/agent.log and the agent switches itself off; the program goes on.
"""

from __future__ import annotations

import atexit
import functools
import os
import sys
import threading
import time
import traceback
import weakref

from fastenough.agent.run_dir import RunDir, dumps

# Step sources, lowest priority first: once a higher one is seen it wins for good.
SOURCES = ("module", "dataloader", "optimizer", "explicit")
SRC_MODULE, SRC_DATALOADER, SRC_OPTIMIZER, SRC_EXPLICIT = range(4)
FLUSH_INTERVAL_NS = 1_000_000_000
LOCK_ROOT_CALLS = 3

_AGENT: Agent | None = None


def get_agent() -> Agent | None:
    return _AGENT


def set_agent(agent: Agent | None) -> None:
    global _AGENT
    _AGENT = agent


def _now() -> tuple[int, int]:
    return time.monotonic_ns(), time.time_ns()


def _env_int(name: str) -> int | None:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


class AgentTestFailure(RuntimeError):
    """Raised on purpose when opts["_test_fail"] names a hook (tests only)."""


class Agent:
    def __init__(self, run_dir: str, opts: dict, role: str, boot_mono: int, boot_wall: int):
        self.dir = RunDir(run_dir)
        self.opts = opts
        self.role = role
        self.pid = os.getpid()
        self.rank = _env_int("RANK")
        self.local_rank = _env_int("LOCAL_RANK")
        self.world_size = _env_int("WORLD_SIZE")
        self.boot = (boot_mono, boot_wall)
        self.enabled = True  # False after an internal error, in forked children, at exit
        self.error: str | None = None
        self.torch = None
        self.torch_watch = None  # torch_import.TorchImportWatch, set by bootstrap.boot()
        self.finished = False
        self._handles: list = []  # torch RemovableHandles
        self._patches: list = []  # (owner, attribute, original)
        self._module_handles: list = []
        self._main_ident = threading.get_ident()
        self._test_fail = opts.get("_test_fail")
        # Options read on every step, converted once.
        self._flush_every = int(opts.get("flush_steps", 256))
        self._trace = bool(opts.get("trace"))
        self._trace_after = int(opts.get("trace_after", 2))
        self._trace_steps = max(1, int(opts.get("trace_steps", 5)))
        self._checks_step = None  # the checks' on_step_end, bound once
        self.checks = None  # the runtime checks' registry (agent/checks), once installed
        # Phases: the automatic phase now open, and user phases by nesting.
        self.auto_phase: str | None = None
        self.phase_steps = 0  # steps closed in the current auto phase
        self.durations: list[int] = []  # step times in warmup, to see them settle
        self.profile_done = False
        self.profile: dict | None = None  # the agent/<pid>.json "profile" entry
        self._prof = None
        # Steps.
        self.source = -1
        self.step_index = 0
        self.steps_buf: list[str] = []
        self.open_step: tuple | None = None  # (mono, wall, items, tokens) of a step begun
        self.last_boundary: tuple[int, int] | None = None
        self.first_activity: tuple[int, int] | None = None
        self.last_step_end: tuple[int, int] | None = None
        self._last_step: tuple[int, int] | None = None  # start of the last step recorded
        self._last_flush = boot_mono
        self._last_edge = (boot_mono, boot_wall)
        self.module_depth = 0
        self._root_params: dict[int, int] = {}
        self._main_root: int | None = None
        self._main_root_params = -1
        self._main_root_calls = 0
        self._root_locked = False
        self._step_hook = None  # native pre-hook on the locked model (step_hook.py)
        self._post_handle = None  # the Python post-hook on it, while not deferring
        self._deferred_before = 0  # steps deferred by native hooks since dropped
        self._hooked_model = None  # weak reference to the locked model
        self._dl_hook = None  # native recorder of DataLoader steps, while deferring
        self._opt_hook = None  # native recorder of optimizer steps, while deferring
        self._opt_handle = None  # our optimizer post-hook's handle
        self.module_last_post: tuple[int, int] | None = None
        self.activated: tuple[int, int] | None = None
        self.trace_rel: str | None = None

    # ------------------------------------------------------------------ start/stop
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
            for hook in (self._step_hook, self._dl_hook, self._opt_hook):
                if hook is not None:
                    hook.deferring = False  # every call to Python, which returns
            self.role = "worker"
            self.pid = os.getpid()
            self.steps_buf = []
            self.open_step = None
            self._prof = None
            self.write_agent_json()
        except Exception:  # noqa: BLE001 - never disturb the child
            pass

    def on_torch_imported(self, torch) -> None:
        try:
            self._activate(torch)
        except Exception:  # noqa: BLE001
            self.fail("activate")

    def _activate(self, torch) -> None:
        global _is_compiling
        self.torch = torch
        compiler = getattr(torch, "compiler", None)
        if compiler is not None and hasattr(compiler, "is_compiling"):
            _is_compiling = compiler.is_compiling
        self.activated = _now()
        if self.role not in ("main", "rank"):
            self.write_agent_json()
            return
        self._check_fail("activate")
        self.auto_phase = "startup"
        self._write_edge("startup", "begin", at=self.boot)
        self._install_hooks(torch)
        self._install_sigterm()
        self.write_agent_json()
        self._install_checks()

    def _install_checks(self) -> None:
        # Runtime waste checks (agent/checks): their own hooks on root module calls;
        # told about steps, phase ends and the steady window below.
        self.checks = None
        if not self.opts.get("checks", True):
            return
        try:
            from fastenough.agent import checks

            self.checks = checks.install(self.dir.path, self.opts, at_exit=False)
            self._checks_step = self.checks.on_step_end
        except Exception:  # noqa: BLE001
            self.checks = None
            self._checks_step = None

    def _checks_call(self, name: str, *args, **kwargs) -> None:
        c = self.checks
        if c is not None:
            try:  # noqa: SIM105 - the registry guards itself; this guards the import
                getattr(c, name)(*args, **kwargs)
            except Exception:  # noqa: BLE001, S110
                pass

    def _install_hooks(self, torch) -> None:
        import warnings

        import torch.optim.optimizer as optim_mod
        import torch.utils.data.dataloader as dl_mod
        from torch.nn.modules import module as module_mod

        # torch.compile(module) warns about global module hooks: those are ours, and
        # harmless (they return at once while dynamo traces them).
        warnings.filterwarnings("ignore", message=r"Using `torch.compile\(module\)` when there "
                                r"are global hooks on modules")
        self._opt_handle = optim_mod.register_optimizer_step_post_hook(self._optimizer_hook)
        self._handles.append(self._opt_handle)
        self._module_handles.append(module_mod.register_module_forward_pre_hook(self._pre_hook))
        self._module_handles.append(
            module_mod.register_module_forward_hook(self._post_hook, always_call=True)
        )
        cls = dl_mod._BaseDataLoaderIter
        orig = cls.__next__
        agent = self

        def __next__(it):
            hook = agent._dl_hook
            if hook is not None and hook.begin():
                # Steady and deferring: the native hook has the boundary; it takes
                # the batch size after the fetch (dataloader_deferral).
                try:
                    batch = orig(it)
                except BaseException as exc:
                    hook.finish(None)
                    if isinstance(exc, StopIteration) and agent.enabled:
                        try:
                            agent._drain()
                            agent._dataloader_stop()
                        except Exception:  # noqa: BLE001
                            agent.fail("dataloader")
                    raise
                hook.finish(batch)
                return batch
            if agent.enabled:
                try:
                    agent._dataloader_before()
                except Exception:  # noqa: BLE001
                    agent.fail("dataloader")
            try:
                batch = orig(it)
            except StopIteration:
                if agent.enabled:
                    try:
                        agent._dataloader_stop()
                    except Exception:  # noqa: BLE001
                        agent.fail("dataloader")
                raise
            if agent.enabled:
                try:
                    agent._dataloader_after(batch)
                except Exception:  # noqa: BLE001
                    agent.fail("dataloader")
            return batch

        __next__.__wrapped__ = orig
        self._patches.append((cls, "__next__", orig))
        cls.__next__ = __next__

    def _install_sigterm(self) -> None:
        import signal

        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return  # the program handles SIGTERM itself (and usually exits through atexit)

        def on_term(signum, frame):
            self.finish()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)  # die of the signal, as without us

        signal.signal(signal.SIGTERM, on_term)
        self._patches.append((signal, "SIGTERM", signal.SIG_DFL))

    def _uninstall(self) -> None:
        for h in self._handles + self._module_handles:
            try:  # noqa: SIM105
                h.remove()
            except Exception:  # noqa: BLE001, S110
                pass
        self._handles, self._module_handles = [], []
        for owner, attr, orig in reversed(self._patches):
            try:
                if attr == "SIGTERM":
                    owner.signal(owner.SIGTERM, orig)
                else:
                    setattr(owner, attr, orig)
            except Exception:  # noqa: BLE001, S110
                pass
        self._patches = []

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
                f"{where}:\n{traceback.format_exc()}\n"
            )
        except Exception:  # noqa: BLE001, S110
            pass
        try:
            self._uninstall()
            if self._prof is not None:
                prof, self._prof = self._prof, None
                prof.stop()
        except Exception:  # noqa: BLE001, S110
            pass
        try:  # noqa: SIM105
            self.write_agent_json()
        except Exception:  # noqa: BLE001, S110
            pass

    def _check_fail(self, where: str) -> None:
        if self._test_fail == where:
            raise AgentTestFailure(f"injected failure in {where}")

    def finish(self) -> None:
        """At exit (atexit, SIGTERM): close the last step and phase, write everything."""
        if self.finished:
            return
        self.finished = True
        if os.getpid() != self.pid:
            return
        try:
            if self.enabled and self.auto_phase is not None:
                self._drain()
                self.enabled = False
                self._finish_phases()
        except Exception:  # noqa: BLE001
            self.enabled = True
            self.fail("finish")
        try:  # noqa: SIM105
            self._flush_steps()
        except Exception:  # noqa: BLE001, S110
            pass
        self._checks_call("at_exit")
        try:
            self._uninstall()
            self.write_agent_json()
        except Exception:  # noqa: BLE001, S110
            pass

    def _finish_phases(self) -> None:
        self._check_fail("finish")
        if self.open_step is not None:
            # A step still open at exit (loop left with break, or model calls): it
            # ended at the last outermost model return if we saw one, else unknown.
            start = self.open_step
            self.open_step = None
            if (self.source == SRC_MODULE and self.module_last_post is not None
                    and self.module_last_post[0] > start[0]):
                self._record_step(start[:2], self.module_last_post, start[2], start[3],
                                  last=True)
        if self._prof is not None:
            self._stop_profiler()
            self._write_edge("profile", "end")
            self.auto_phase = "tail"
            self._write_edge("tail", "begin")
        elif self.auto_phase == "startup" or self.last_step_end is None:
            self._write_edge(self.auto_phase, "end")
            self.auto_phase = None
            return
        else:
            # The last step is only known at exit: its end is where tail began (unless
            # the current phase began after it, at that step's boundary).
            at = max(self.last_step_end, self._last_edge)
            self._write_edge(self.auto_phase, "end", at=at)
            self.auto_phase = "tail"
            self._write_edge("tail", "begin", at=at)
        self._write_edge("tail", "end")
        self.auto_phase = None

    # ------------------------------------------------------------------ files
    def write_agent_json(self) -> None:
        torch = self.torch
        info = {
            "pid": self.pid,
            "rank": self.rank,
            "local_rank": self.local_rank,
            "world_size": self.world_size,
            "role": self.role,
            "python": sys.version.split()[0],
            "torch": getattr(torch, "__version__", None) if torch else None,
            "cuda": None,
            "devices": [],
            "compile": self._compile_info(),
            "profile": self.profile,
            "steps": self.step_index,
            "step_source": SOURCES[self.source] if self.source >= 0 else None,
            # Steps the native hook recorded without running the agent's Python code.
            "steps_deferred": self._steps_deferred(),
            "boot_mono_ns": self.boot[0],
            "boot_wall_ns": self.boot[1],
            "agent_error": self.error,
            # How torch reached the agent (torch_import.py), and whether the program
            # imported torch in a way the agent never saw (then it measured nothing).
            "torch_attach": getattr(self.torch_watch, "how", None) if torch else None,
            "torch_imported_unseen": torch is None and "torch" in sys.modules,
        }
        if torch is not None:
            try:
                info["cuda"] = torch.version.cuda
                info["devices"] = self._devices()
            except Exception:  # noqa: BLE001, S110
                pass
        self.dir.write_json(os.path.join("agent", f"{self.pid}.json"), info)

    def _devices(self) -> list:
        torch = self.torch
        out = []
        # Only a backend the program initialised: asking otherwise would initialise it.
        if torch.cuda.is_initialized():
            for i in range(torch.cuda.device_count()):
                out.append({"device": f"cuda:{i}", "name": torch.cuda.get_device_name(i)})
        npu = getattr(torch, "npu", None)
        if npu is not None and getattr(npu, "is_initialized", lambda: False)():
            for i in range(npu.device_count()):
                out.append({"device": f"npu:{i}", "name": npu.get_device_name(i)})
        if not out:
            import platform

            out.append({"device": "cpu", "name": platform.processor() or platform.machine()})
        return out

    def _compile_info(self) -> dict:
        info = {"compile_time_ns": None, "compiles": None, "recompiles": None}
        utils = sys.modules.get("torch._dynamo.utils")
        if utils is None:
            return info  # dynamo never imported: nothing compiled
        try:
            metrics = getattr(utils, "compilation_time_metrics", {})
            inner = list(metrics.get("_compile.compile_inner", []))
            info["compile_time_ns"] = int(sum(inner) * 1e9)
            info["compiles"] = len(inner)
        except Exception:  # noqa: BLE001, S110
            pass
        try:
            # convert_frame counts compiles per frame (code object); every compile of
            # a frame after its first is a recompile (guard failure).
            convert = sys.modules.get("torch._dynamo.convert_frame")
            per_frame = getattr(convert, "FRAME_COMPILE_COUNTER", None)
            if per_frame is not None:
                info["recompiles"] = int(sum(max(0, c - 1) for c in per_frame.values()
                                             if isinstance(c, int)))
            elif "recompiles" in utils.counters:
                info["recompiles"] = int(sum(utils.counters["recompiles"].values()))
        except Exception:  # noqa: BLE001, S110
            pass
        return info

    def _dynamo_compiled(self) -> bool:
        utils = sys.modules.get("torch._dynamo.utils")
        try:
            return bool(utils and utils.compilation_time_metrics.get("_compile.compile_inner"))
        except Exception:  # noqa: BLE001
            return True  # unknown: assume compiled, and keep the hooks as they are

    def _flush_steps(self) -> None:
        self._last_flush = time.monotonic_ns()
        if self.steps_buf:
            buf, self.steps_buf = self.steps_buf, []
            rank = self.rank if self.rank is not None else 0
            head = f'{{"rank":{rank},"pid":{self.pid},"index":'
            # Formatted by hand: json.dumps per line cost more than the step itself
            # on small steps. Every value is an int, None or one of our own names.
            self.dir.append_lines("steps.jsonl", [
                f'{head}{index},"start_mono_ns":{start[0]},"end_mono_ns":{end[0]},'
                f'"start_wall_ns":{start[1]},"end_wall_ns":{end[1]},'
                f'"items":{_json_int(items)},"tokens":{_json_int(tokens)},'
                f'"source":"{SOURCES[source]}","phase":{_json_str(phase)}}}'
                for index, start, end, items, tokens, source, phase in buf])

    # ------------------------------------------------------------------ phases
    def _sync(self) -> bool:
        torch = self.torch
        if torch is None:
            return True
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        npu = getattr(torch, "npu", None)
        if npu is not None and getattr(npu, "is_initialized", lambda: False)():
            npu.synchronize()
        return True

    def _memory(self) -> dict:
        torch = self.torch
        mem = {
            "device": "cpu",
            "allocated_bytes": None,
            "reserved_bytes": None,
            "alloc_peak_bytes": None,
            "reserved_peak_bytes": None,
            "rss_bytes": _rss_bytes(),
        }
        backend = None
        if torch is not None and torch.cuda.is_initialized():
            backend, name = torch.cuda, "cuda"
        elif torch is not None:
            npu = getattr(torch, "npu", None)
            if npu is not None and getattr(npu, "is_initialized", lambda: False)():
                backend, name = npu, "npu"
        if backend is not None:
            mem["device"] = f"{name}:{backend.current_device()}"
            mem["allocated_bytes"] = int(backend.memory_allocated())
            mem["reserved_bytes"] = int(backend.memory_reserved())
            mem["alloc_peak_bytes"] = int(backend.max_memory_allocated())
            mem["reserved_peak_bytes"] = int(backend.max_memory_reserved())
        return mem

    def _reset_peaks(self) -> None:
        torch = self.torch
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.reset_peak_memory_stats()
        npu = getattr(torch, "npu", None)
        if npu is not None and getattr(npu, "is_initialized", lambda: False)():
            npu.reset_peak_memory_stats()

    def _write_edge(self, phase, edge, *, at=None, auto=True) -> tuple[int, int]:
        """One line of phases.jsonl. Live edges wait for the device first; `at` gives
        an edge known only afterwards (e.g. the end of the last step), not synced."""
        if at is None:
            synced = self._sync()
            mono, wall = _now()
        else:
            synced = False
            mono, wall = at
        line = {
            "rank": self.rank if self.rank is not None else 0,
            "pid": self.pid,
            "phase": phase,
            "edge": edge,
            "mono_ns": mono,
            "wall_ns": wall,
            "synced": synced,
            "auto": auto,
        }
        if edge == "end":
            line["memory"] = self._memory()
        elif auto:
            self._reset_peaks()
        self._flush_steps()
        self.dir.append_lines("phases.jsonl", [dumps(line)])
        if auto:
            self._last_edge = (mono, wall)
            self.write_agent_json()
        if edge == "end":
            if phase == "steady":
                self._checks_call("on_steady_end")
            self._checks_call("on_phase_end", phase)
        elif phase == "steady":
            self._checks_call("on_steady_begin")
        return mono, wall

    def _switch_phase(self, new: str) -> tuple[int, int]:
        self._write_edge(self.auto_phase, "end")
        self.auto_phase = new
        self.phase_steps = 0
        return self._write_edge(new, "begin")

    def user_phase_edge(self, name: str, edge: str) -> None:
        if not self.enabled or os.getpid() != self.pid:
            return
        try:
            self._drain()
            self._write_edge(str(name), edge, auto=False)
        except Exception:  # noqa: BLE001
            self.fail("phase")

    # ------------------------------------------------------------------ steps
    def _accept(self, source: int, t: tuple[int, int]) -> bool:
        if self.first_activity is None:
            self.first_activity = t
        if source < self.source:
            return False  # (a DataLoader batch in an optimizer loop: nothing to do)
        if self._step_hook is not None or self._dl_hook is not None \
                or self._opt_hook is not None:
            self._drain()  # deferred steps first, before this source changes anything
        if source == self.source:
            return True
        # A higher-priority source appears: it takes over from here.
        if self.open_step is not None:
            self.last_boundary = self.open_step[:2]
            self.open_step = None
        elif self.last_step_end is not None:
            self.last_boundary = self.last_step_end
            if self.steps_buf and self._last_step is not None and source >= SRC_OPTIMIZER:
                # The lower source closed a step in this same iteration (optimizer.step()
                # just before fastenough.step(), say): take it back, or the new source's
                # first step would be a sliver. Only while it is still in memory.
                self.steps_buf.pop()
                self.last_boundary = self._last_step
                self.step_index -= 1
                self.phase_steps = max(0, self.phase_steps - 1)
                self._last_step = None
        self.source = source
        self.durations = []
        if self._dl_hook is not None and source != SRC_DATALOADER:
            self._dl_hook.deferring = False  # batches are no steps of their own now
        if self._opt_hook is not None and source != SRC_OPTIMIZER:
            self._swap_optimizer_hook(False)
        if source > SRC_MODULE and self._module_handles:
            for h in self._module_handles:  # model-call hooks cost per module call
                h.remove()
            self._module_handles = []
            self._drop_step_hook()
        return True

    def _begin_first(self, t: tuple[int, int]) -> tuple[int, int]:
        if self.auto_phase == "startup":
            return self._switch_phase("warmup")
        return t

    def _open(self, t: tuple[int, int], items=None, tokens=None) -> None:
        t = self._begin_first(t)
        self.open_step = (t[0], t[1], items, tokens)

    def _close_open(self, t: tuple[int, int]) -> tuple[int, int]:
        """Close the open step at t; returns where the next step starts."""
        if self.open_step is None:
            return t
        start = self.open_step
        self.open_step = None
        return self._record_step(start[:2], t, start[2], start[3])

    def _record_step(self, start, end, items, tokens, last=False) -> tuple[int, int]:
        if self._test_fail is not None:
            self._check_fail("step")
        # A tuple now, a JSON line at the next flush: the hot loop only appends.
        buf = self.steps_buf
        buf.append((self.step_index, start, end, items, tokens, self.source, self.auto_phase))
        self.step_index += 1
        self.phase_steps += 1
        self.last_step_end = end
        self._last_step = start
        # Write buffered steps now and then, so that a process killed without atexit
        # (SIGKILL, os._exit) loses at most about a second of steps.
        if len(buf) >= self._flush_every or end[0] - self._last_flush >= FLUSH_INTERVAL_NS:
            self._flush_steps()
        on_step_end = self._checks_step
        if on_step_end is not None:
            try:  # noqa: SIM105 - the registry guards itself; this guards the agent
                on_step_end(end[0] - start[0], items)
            except Exception:  # noqa: BLE001, S110
                pass
        if last:  # recorded at exit: no phase starts after the last step
            return end
        if self.auto_phase == "steady" and (self.profile_done or not self._trace):
            return end  # the usual steady step: no phase change can follow
        return self._after_step(end[0] - start[0], end)

    def _after_step(self, duration: int, t: tuple[int, int]) -> tuple[int, int]:
        """Phase transitions happen only at step boundaries."""
        phase = self.auto_phase
        if phase == "warmup":
            self.durations.append(duration)
            if self._settled():
                t = self._switch_phase("steady")
                if self._want_profile() and self._trace_after <= 0:
                    t = self._start_profile()
        elif phase == "steady":
            if self._want_profile() and self.phase_steps >= self._trace_after:
                t = self._start_profile()
        elif phase == "profile":
            if self.phase_steps >= self._trace_steps:
                self._stop_profiler()
                t = self._switch_phase("steady")
            elif self._prof is not None:
                self._prof.step()
        return t

    def _settled(self) -> bool:
        n = len(self.durations)
        if n >= int(self.opts["warmup_max"]):
            return True
        if n < max(3, int(self.opts["warmup_steps"])):
            return False
        last = sorted(self.durations[-3:])
        median = last[1]
        if all(abs(d - median) <= 0.2 * median for d in last):
            return True
        # Noisy but flat: on a shared machine single steps jitter by more than
        # 20%, yet warm-up effects (allocator growth, autotuning, lazy init)
        # show up as a trend. No trend between the last two triples = settled.
        if n >= 6:
            before = sorted(self.durations[-6:-3])[1]
            return abs(median - before) <= 0.15 * before
        return False

    def _want_profile(self) -> bool:
        return self._trace and not self.profile_done

    # ------------------------------------------------------------------ profiler
    def _start_profile(self) -> tuple[int, int]:
        self._check_fail("profile")
        self.profile_done = True
        self._switch_phase("profile")
        torch = self.torch
        from torch.profiler import ProfilerActivity, profile, schedule

        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_initialized():
            activities.append(ProfilerActivity.CUDA)
        steps = self._trace_steps
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prof = profile(
                activities=activities,
                record_shapes=True,
                with_stack=False,
                # A schedule makes the profiler mark each step as ProfilerStep#N.
                schedule=schedule(wait=0, warmup=0, active=steps, repeat=1),
            )
            prof.start()
        self._prof = prof
        self.profile = {
            "trace": None,
            "first_step": self.step_index,
            "last_step": None,
            "start_wall_ns": _now()[1],
            "end_wall_ns": None,
        }
        return _now()

    def _stop_profiler(self) -> None:
        prof, self._prof = self._prof, None
        if prof is None:
            return
        import gzip
        import shutil
        import warnings

        end_wall = _now()[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prof.stop()
        os.makedirs(self.dir.file("trace"), exist_ok=True)
        rank = self.rank if self.rank is not None else 0
        rel = os.path.join("trace", f"rank{rank}.pt.trace.json")
        if os.path.exists(self.dir.file(rel + ".gz")):  # several main processes
            rel = os.path.join("trace", f"rank{rank}.{self.pid}.pt.trace.json")
        path = self.dir.file(rel)
        prof.export_chrome_trace(path)
        with open(path, "rb") as src, gzip.open(path + ".gz.tmp", "wb", compresslevel=3) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(path + ".gz.tmp", path + ".gz")
        os.remove(path)
        self.profile.update({
            "trace": rel + ".gz",
            "last_step": self.step_index - 1,
            "end_wall_ns": end_wall,
        })

    # ------------------------------------------------------------------ hooks
    def _dataloader_before(self) -> None:
        if threading.get_ident() != self._main_ident:
            return
        t = _now()
        if not self._accept(SRC_DATALOADER, t):
            return
        self._check_fail("dataloader")
        t = self._close_open(t)
        self._open(t)
        self._dataloader_deferral()

    def _may_defer(self, source: int) -> bool:
        """Steps of `source` may go to a native recorder: it is the step source, the
        phase is steady with no change to come (the profiler window done or off),
        and the checks' sync-watch sample is over."""
        checks = self.checks
        return (self.enabled and self.source == source and self.auto_phase == "steady"
                and (self.profile_done or not self._trace)
                and (checks is None or checks.sampling)
                and bool(self.opts.get("defer_steps", True)))

    def _recorder(self, live_pre):
        """A native recorder (step_hook.py) that calls live_pre for live calls:
        once a second, or when it holds as many steps as a flush writes."""
        from fastenough.agent import step_hook

        hook = step_hook.make(live_pre, record=True, batch_size=_batch_size,
                              main_thread=self._main_ident)
        if hook is not None:
            hook.max_age_ns = FLUSH_INTERVAL_NS
            hook.capacity = max(1, self._flush_every)
        return hook

    def _dataloader_deferral(self) -> None:
        """Once steady (no phase change possible, the profiler window done or off,
        the checks' sync-watch sample over), DataLoader steps go to a native hook:
        __next__ then runs no agent Python code but once a second or every 256
        batches (a live call, which replays them: _drain)."""
        want = self._may_defer(SRC_DATALOADER)
        hook = self._dl_hook
        if want and hook is None:
            hook = self._dl_hook = self._recorder(_no_live_call)
        if hook is not None and hook.deferring != want:
            hook.deferring = want

    def _dataloader_after(self, batch) -> None:
        if self.source != SRC_DATALOADER or self.open_step is None:
            return
        items, tokens = _batch_size(batch)
        s = self.open_step
        self.open_step = (s[0], s[1], items, tokens)

    def _dataloader_stop(self) -> None:
        if self.source != SRC_DATALOADER or threading.get_ident() != self._main_ident:
            return
        # The iterator is exhausted: the step that used the last batch ended when this
        # __next__ was called (closed then); the step opened for a batch that never
        # came is dropped.
        if self.open_step is not None:
            self.last_boundary = self.open_step[:2]
            self.open_step = None

    def _pre_hook(self, module, args, kwargs=None) -> None:
        if _is_compiling() or not self.enabled or threading.get_ident() != self._main_ident:
            return
        try:
            hook = self._step_hook
            if hook is not None and hook.deferring:
                # Sent here by the native hook, which sees outermost calls only and
                # keeps no depth; a depth left open by a call that raised is reset.
                self.module_depth = 0
            self.module_depth += 1
            if self.module_depth == 1:
                self._root_call(module, args, kwargs)
        except Exception:  # noqa: BLE001
            self.fail("module")

    def _root_call(self, module, args, kwargs) -> None:
        """An outermost module call. Steps follow the main model only: the root
        module with the most parameters seen so far (a loss or metric module called
        at top level between model calls is no step). After LOCK_ROOT_CALLS calls of
        the same main model, the global hooks, which cost every submodule call, are
        replaced by hooks on that model alone (a bigger model that appears only later
        then goes unseen); those also see keyword arguments (model(**batch)), where
        the batch size is read from."""
        t = _now()
        if self._step_hook is not None:
            self._drain()
        key = id(module)
        if key != self._main_root or not self._root_locked:
            n = self._root_params.get(key)
            if n is None:
                n = sum(p.numel() for p in module.parameters())
                self._root_params[key] = n
            if self._main_root is None or n > self._main_root_params:
                self._main_root, self._main_root_params, self._main_root_calls = key, n, 0
            elif key != self._main_root:
                return
        if self.source != SRC_MODULE and not self._accept(SRC_MODULE, t):
            return
        if self._test_fail is not None:
            self._check_fail("module")
        t = self._close_open(t)
        items, tokens = _batch_size(args if args or not kwargs else kwargs)
        self._open(t, items, tokens)
        if self._root_locked:
            self._update_deferral(module, args, kwargs)
            return
        self._main_root_calls += 1
        # Not once torch.compile has compiled something: its guards check the global
        # hooks, so removing them would recompile (inside compiled code the hooks
        # cost nothing anyway: see _is_compiling).
        if self._main_root_calls == LOCK_ROOT_CALLS and self._module_handles \
                and not self._dynamo_compiled():
            for h in self._module_handles:
                h.remove()
            self.module_depth = 0
            self._root_locked = True
            self._module_handles = self._model_hooks(module, native=True)

    def _model_hooks(self, module, native: bool) -> list:
        """The hooks on the locked model: a native pre-hook that can defer the
        per-step work (step_hook.py) or the Python one, and the Python post-hook
        (kept in self._post_handle: taken off while the native hook defers)."""
        self._drop_step_hook()
        self._hooked_model = weakref.ref(module)
        native = native and bool(self.opts.get("defer_steps", True))
        hook = self._step_hook = self._recorder(self._pre_hook) if native else None
        pre = module.register_forward_pre_hook(
            hook.pre if hook is not None else self._pre_hook, with_kwargs=True)
        self._post_handle = module.register_forward_hook(self._locked_post, always_call=True)
        return [pre, self._post_handle]

    def _drop_step_hook(self) -> None:
        """The native hook goes (another step source took over, or torch.compile):
        its count is kept, and the checks hook the model themselves again."""
        hook, self._step_hook = self._step_hook, None
        if hook is None:
            return
        self._deferred_before += hook.deferred_calls
        module = self._hooked_model() if self._hooked_model is not None else None
        checks = self.checks
        if hook.deferring and checks is not None and module is not None:
            checks.reclaim_root(module)
        hook.deferring = False

    def _steps_deferred(self) -> int:
        hooks = (self._step_hook, self._dl_hook, self._opt_hook)
        return self._deferred_before + sum(h.deferred_calls for h in hooks if h is not None)

    def _update_deferral(self, module, args, kwargs) -> None:
        """Defer steps to the native hook only where no step can change the phase
        (steady, the profiler window done or off) and the checks' sync-watch sample
        is over. Called from every live call on the locked model. While deferring,
        the native pre-hook is the only hook on the model: the checks take theirs
        off and get every SAMPLE_EVERY-th call from here (live_call), and a call
        that needs our post-hook gets a one-shot one. If torch.compile compiled
        something since, go back to the Python hooks: dynamo traces those (and
        folds them away), a native one would break the graph."""
        from fastenough.agent import step_hook

        hook = self._step_hook
        if hook is None:
            return
        checks = self.checks
        if self._dynamo_compiled():
            self._drain()
            for h in self._module_handles:
                h.remove()
            # This very call's post goes to the new Python post-hook (torch reads the
            # forward hooks after forward) and closes the depth this call opened.
            self._module_handles = self._model_hooks(module, native=False)
            return
        want = self._may_defer(SRC_MODULE)
        if want and not hook.deferring:
            hook.deferring = True
            if checks is not None:
                from fastenough.agent.checks.registry import SAMPLE_EVERY

                hook.live_every = SAMPLE_EVERY
                checks.yield_root(module, hook)
        elif not want and hook.deferring:
            hook.deferring = False
            if checks is not None:
                checks.reclaim_root(module)
        if want:
            if self._post_handle is not None:  # no post-hook while deferring ...
                self._post_handle.remove()
                self._module_handles.remove(self._post_handle)
                self._post_handle = None
            step_hook.one_shot_post(module, self._locked_post)  # ... but for this call
            if checks is not None:
                checks.live_call(module, args, kwargs if kwargs is not None else {})
        elif self._post_handle is None:
            self._post_handle = module.register_forward_hook(self._locked_post,
                                                             always_call=True)
            self._module_handles.append(self._post_handle)

    def _drain(self) -> None:
        """Replay the steps a native hook deferred (model calls or DataLoader
        batches), in order, with the effect a live call has: before anything else
        looks at steps. While deferring model calls there is no post-hook, so the
        end of the last model call is not known: a step still open at exit then
        ends at the last live call's return, or is dropped (see _finish_phases)."""
        hook = (self._step_hook, self._dl_hook, self._opt_hook, None)[self.source] \
            if self.source >= 0 else None
        if hook is None or not hook.pending:
            return
        records = hook.drain()
        if self.source == SRC_OPTIMIZER:  # a record is where a step ended
            for mono, wall, items, tokens in records:
                start = self.last_boundary or (mono, wall)
                self.last_boundary = self._record_step(start, (mono, wall), items, tokens)
            return
        if (self.open_step is None or self.auto_phase != "steady"
                or (self._trace and not self.profile_done)):
            for mono, wall, items, tokens in records:  # the general path
                t = self._close_open((mono, wall))
                self._open(t, items, tokens)
            return
        # Steady, no phase change possible: each record closes the open step and
        # opens the next; the same tuples _record_step appends, in one loop.
        buf, phase, source = self.steps_buf, self.auto_phase, self.source
        index = self.step_index
        start = self.open_step
        durations = []
        for mono, wall, items, tokens in records:
            buf.append((index, start[:2], (mono, wall), start[2], start[3], source, phase))
            durations.append(mono - start[0])
            index += 1
            last_start, start = start, (mono, wall, items, tokens)
        self.step_index = index
        self.phase_steps += len(records)
        self.last_step_end = start[:2]
        self._last_step = last_start[:2]
        self.open_step = start
        self._checks_call("on_steps_end", durations)
        if len(buf) >= self._flush_every or start[0] - self._last_flush >= FLUSH_INTERVAL_NS:
            self._flush_steps()

    def _locked_post(self, module, args, output) -> None:
        self._post_hook(module, args, output)

    def _post_hook(self, module, args, output) -> None:
        if _is_compiling() or not self.enabled or threading.get_ident() != self._main_ident:
            return
        try:
            self.module_depth -= 1
            if self.module_depth <= 0:
                self.module_depth = 0
                self.module_last_post = _now()
        except Exception:  # noqa: BLE001
            self.fail("module")

    def _optimizer_hook(self, optimizer, args, kwargs) -> None:
        if _is_compiling() or not self.enabled or threading.get_ident() != self._main_ident:
            return
        try:
            self._end_type_step(SRC_OPTIMIZER, None, None)
        except Exception:  # noqa: BLE001
            self.fail("optimizer")

    def explicit_step(self, items, tokens) -> None:
        if not self.enabled or os.getpid() != self.pid or self.auto_phase is None:
            return
        try:
            self._end_type_step(SRC_EXPLICIT, items, tokens)
        except Exception:  # noqa: BLE001
            self.fail("step")

    def _end_type_step(self, source: int, items, tokens) -> None:
        """Sources that mark the end of a step: it began where the previous one ended;
        the first began at the first DataLoader batch or model call seen (else when
        torch was imported), known only now, so startup's end edge is written late."""
        t = _now()
        earlier = self.first_activity  # _accept() sets it to t on the first event
        if not self._accept(source, t):
            return
        start = self.last_boundary or earlier or self.activated or t
        if self.auto_phase == "startup":
            self._write_edge("startup", "end", at=start)
            self.auto_phase = "warmup"
            self.phase_steps = 0
            self._write_edge("warmup", "begin", at=start)
        self.last_boundary = self._record_step(start, t, items, tokens)
        if source == SRC_OPTIMIZER:
            self._optimizer_deferral()

    def _optimizer_deferral(self) -> None:
        """Once steady, optimizer steps go to a native hook: it takes the place of
        our Python post-hook under the same key of torch's hook dictionary (torch
        is iterating over it while it calls us: a new key would break its loop) and
        calls it once a second or every 256 steps to replay the others."""
        want = self._may_defer(SRC_OPTIMIZER)
        hook = self._opt_hook
        if want and hook is None:
            hook = self._opt_hook = self._recorder(self._optimizer_hook)
        if hook is not None and hook.deferring != want:
            self._swap_optimizer_hook(want)

    def _swap_optimizer_hook(self, native: bool) -> None:
        hooks = getattr(sys.modules.get("torch.optim.optimizer"),
                        "_global_optimizer_post_hooks", None)
        handle, hook = self._opt_handle, self._opt_hook
        if hooks is None or handle is None or hook is None or handle.id not in hooks:
            return
        hook.deferring = native
        hooks[handle.id] = hook.pre if native else self._optimizer_hook


def _no_live_call(*args) -> None:
    return None


def _not_compiling() -> bool:
    return False


# torch.compile traces module hooks into the compiled graph. Hooks test this first:
# dynamo folds torch.compiler.is_compiling() to True while tracing, so the hook
# body never enters a graph (no graph break, no guard on the agent's counters,
# no recompilation); in eager mode it is one cheap call. Set at torch import.
_is_compiling = _not_compiling


def _json_int(v) -> str:
    return "null" if v is None else str(int(v))


@functools.lru_cache(maxsize=64)
def _json_str(v) -> str:
    return "null" if v is None else dumps(str(v))


def _rss_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _first_tensor(obj, depth: int = 0):
    torch = sys.modules.get("torch")
    if torch is None or depth > 2:
        return None, None
    if isinstance(obj, torch.Tensor):
        return obj, None
    if isinstance(obj, dict):
        ids = obj.get("input_ids")
        if isinstance(ids, torch.Tensor):
            return ids, ids
        for v in obj.values():
            found = _first_tensor(v, depth + 1)
            if found[0] is not None:
                return found
    elif isinstance(obj, (list, tuple)):
        for v in obj[:4]:
            found = _first_tensor(v, depth + 1)
            if found[0] is not None:
                return found
    return None, None


def _batch_size(batch) -> tuple[int | None, int | None]:
    """items: first dim of the first tensor; tokens: numel of an input_ids-like
    2-D integer tensor (dict key "input_ids", or the first tensor when it is one)."""
    if type(batch) is tuple and batch:
        # The usual model call, model(x): answered without the general search.
        first = batch[0]
        torch = sys.modules.get("torch")
        if torch is not None and type(first) is torch.Tensor:
            return _tensor_counts(first, None)
    tensor, ids = _first_tensor(batch)
    if tensor is None:
        return None, None
    return _tensor_counts(tensor, ids)


def _tensor_counts(tensor, ids) -> tuple[int | None, int | None]:
    shape = tensor.shape
    if not shape:
        return None, None
    if ids is None and len(shape) == 2 and _is_integer(tensor.dtype):
        ids = tensor
    tokens = int(ids.numel()) if ids is not None and ids.dim() == 2 else None
    return int(shape[0]), tokens


@functools.lru_cache(maxsize=64)
def _is_integer(dtype) -> bool:
    return not dtype.is_floating_point and not dtype.is_complex and dtype != sys.modules[
        "torch"].bool
