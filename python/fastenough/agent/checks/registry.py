"""The checks registry: one per process, called by the agent at defined points.

  on_forward(module, args, kwargs, output)   root module calls (own hooks by default)
  on_step_end(duration_ns=None, items=None)  each step the agent closes
  on_phase_end(name, mode)                   census (once per phase and mode)
  on_steady_begin() / on_steady_end()        sync watch and recompile window
  at_exit()                                  decide and write checks.json,
                                             census.json, syncs.json (atomically)

Every callback is guarded: the first internal error is logged once to
<run dir>/agent.log and the checks switch themselves off; the program goes on.
"""

from __future__ import annotations

import collections
import os
import sys
import time
import traceback
import weakref

from fastenough.agent import memory, module_hooks
from fastenough.agent.checks import _util, probe, sync_watch
from fastenough.agent.checks.census import Census
from fastenough.agent.checks.eval_graph import AutogradCheck, BackwardStretches, TrainModeCheck
from fastenough.agent.checks.hf_outputs import OutputsCheck
from fastenough.agent.checks.logits import LogitsCheck
from fastenough.agent.checks.padding import PaddingCheck
from fastenough.agent.checks.sync_watch import SyncWatch

DISCOVERY_ROOT_CALLS = 4  # global hooks find the root modules, then per-module hooks
# Which root forwards the checks examine. All of them until the first
# EXAMINE_ALL_STEADY steady steps are done (the same sample as the sync watch)
# or EXAMINE_ALL_FORWARDS forwards were seen; then every SAMPLE_EVERY-th, so
# that the checks cost next to nothing per step in a long steady loop while a
# systematic sample still covers the whole run (a dataset sorted by length
# included). Every forward is still counted.
EXAMINE_ALL_STEADY = 32
EXAMINE_ALL_FORWARDS = 512
# A replaced main model (agent/model_swap.py): its first forwards are all
# examined again, so that its own loop (a generation after training) is seen.
EXAMINE_AFTER_SWAP = 64
SAMPLE_EVERY = 64
# The eval probe at a phase edge waits for this many timed forwards (the
# forward's time decides how much of the batch the probe's budget holds).
EDGE_PROBE_MIN_FORWARDS = 3
# The forwards timed per root and batch rows (the probe's like-for-like
# median): so many kinds, so many timings of each.
FORWARD_KINDS = 16
FORWARD_KIND_SAMPLES = 2048
# ... and keeps at most this much alive in graphs (or this share of the
# process's memory): the profiler window's bound (profile_window.py).
EDGE_PROBE_MEMORY_BYTES = 64 << 20
EDGE_PROBE_MEMORY_SHARE = 0.05


def _guard(fn):
    def wrapped(self, *a, **k):
        if not self.enabled:
            return None
        own = self.own
        t0 = own.enter() if own is not None else 0
        try:
            return fn(self, *a, **k)
        except Exception:  # noqa: BLE001 - never disturb the program
            self.internal_error(fn.__name__)
            return None
        finally:
            if own is not None:
                own.leave(t0)

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _timed(fn):
    """A hook body whose time is the agent's own cost (agent/own_cost.py)."""
    def wrapped(self, *a):
        own = self.own
        if own is None or self._compiling():  # under dynamo: no clock read (it would be traced)
            return fn(self, *a)
        t0 = own.enter()
        try:
            return fn(self, *a)
        finally:
            own.leave(t0)

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


class Registry:
    def __init__(self, run_dir: str, opts: dict | None = None, torch=None) -> None:
        if torch is None:
            import torch
        self.torch = torch
        self.run_dir = run_dir
        self.opts = dict(opts or {})
        self.probe = bool(self.opts.get("probe", False))
        self.pid = os.getpid()
        self.rank = _env_int("RANK")
        self.enabled = True
        self.error: str | None = None
        self.own = None  # the agent's own_cost.OwnCost, set by the agent
        # Whether the agent's profiler window is recording (set by the agent): a
        # check that runs Python for every op (a dispatch mode) waits until it
        # is not, or the window records the check's frames and times.
        self.profiling = lambda: False
        self.finished = False
        self.in_steady = False
        self._forwards_py = 0  # root forwards seen by the Python hooks
        self.examined = 0  # of which the checks examined (see SAMPLE_EVERY)
        self.sampling = False
        self._examine_until = 0  # examined count before which sampling waits (a swap)
        self._batch_dims: dict[int, int] = {}  # id(root) -> its batch dimension
        # Roots whose calls the agent reports instead of our hooks (yield_root):
        # id -> the agent's native hook, which counts the calls it kept to itself.
        self._driven: dict = {}
        self._driven_counted = 0  # such calls of roots given back since
        # Roots the agent will drive once it defers (its locked model): they keep
        # our Python hooks until then, or a call would be counted by two native
        # hooks on the hand-over.
        self._reserved: set[int] = set()
        self._root_handles: dict = {}  # id(root) -> [pre, post] handles, or [native pre]
        # Once sampling, a native pre-hook (agent/step_hook.py) on our roots counts
        # the calls and sends every SAMPLE_EVERY-th here; no forward hook stays.
        self._native = None
        self._compiled = False  # torch.compile compiled something: Python hooks only
        self._native_roots: dict = {}  # id -> weak reference to the module
        self._examining = False
        self.examine_all_steady = int(self.opts.get("sync_watch_steps", EXAMINE_ALL_STEADY))
        self.steps = 0
        self.steady_steps = 0
        self.step_ns: list[int] = []
        self.fwd_ns: list[int] = []
        self.fwd_ns_steady: list[int] = []
        # Forward times by (root, rows of its first tensor argument): the eval
        # probe's call is priced against forwards like it, not the run's median
        # of every forward (DLRM: 64-row training forwards of 1.1 ms beside the
        # evaluation's large batches of 31 ms).
        self.fwd_ns_by_kind: dict = {}
        self._probe_kind = None  # the kind of the call the eval probe last timed
        self._autograd = None  # agent/autograd_watch.AutogradWatch, once installed
        self._autograd_base = 0
        self.batch_sizes: collections.Counter = collections.Counter()
        self.peaks: dict = {}
        self.recompiles_in_steady = 0
        self.recompile_reasons: list[str] = []
        self._dynamo_mark = None
        self._depth = 0
        self._t_fwd = 0
        self._roots: dict[int, object] = {}
        self._called_roots = weakref.WeakValueDictionary()
        self._root_calls = 0
        self._handles: list = []
        self._patches: list = []
        self.stretches = BackwardStretches(self)
        # Set by the agent: called when a stretch of forwards with no backward
        # begins to read as an evaluation loop (its steps are then model calls).
        self.on_eval_stretch = None
        self.autograd = AutogradCheck(self)
        self.train_mode = TrainModeCheck(self)
        self.outputs = OutputsCheck(self)
        self.logits = LogitsCheck(self)
        self.padding = PaddingCheck(self)
        self.census = Census(self)
        self.sync = SyncWatch(self)
        self.probe_results: dict = {}
        self._census_taken: set = set()
        self._probe_autograd = None
        # The evaluation call the eval probe times at exit (probe.EvalCall), and
        # the stretch it was kept from; on by default, off with opts no_probe.
        self._eval_call = None
        self._eval_call_stretch: int | None = None  # the start of the stretch it is from
        self._eval_call_skip: str | None = None  # why no call was kept
        # The probe at a phase edge: tried once; its result and the stretch of
        # its call, until exit judges them.
        self._edge_probed = False
        self._edge_retry_ns = 0  # a probe over its time budget waits until then
        self._edge_probe: tuple[dict, int | None] | None = None
        self._probing = False  # inside a probe: the root hooks count nothing
        self.terminating = False  # set by the agent when SIGTERM ends the run: no probe
        self._t0 = time.perf_counter_ns()

    # ------------------------------------------------------------------ install
    def install_hooks(self) -> None:
        """Global forward hooks until the root modules are known, then hooks on
        those modules only (a pre and a post hook per root call)."""
        self._add_global_hooks()
        self._patch_backward()

    def _add_global_hooks(self) -> None:
        self._handles.append(module_hooks.add_global_pre(self._global_pre))
        self._handles.append(module_hooks.add_global_post(
            self._global_post, with_kwargs=True, always_call=True))

    def _patch_backward(self) -> None:
        # Counted by the process's native wrappers (agent/autograd_watch.py):
        # no frame of ours in the program's tracebacks through backward().
        from fastenough.agent import autograd_watch

        self._autograd = autograd_watch.shared(self.torch)
        self._autograd_base = self._autograd.calls

    @property
    def backward_calls(self) -> int:
        """backward() and autograd.grad() calls since the hooks were installed."""
        w = self._autograd
        return w.calls - self._autograd_base if w is not None else 0

    def uninstall(self) -> None:
        for h in self._handles:
            try:  # noqa: SIM105
                module_hooks.remove(h)
            except Exception:  # noqa: BLE001, S110
                pass
        self._handles = []
        for owner, name, orig in reversed(self._patches):
            try:  # noqa: SIM105
                setattr(owner, name, orig)
            except Exception:  # noqa: BLE001, S110
                pass
        self._patches = []
        try:
            self.sync.end()
            self.logits.close()
        except Exception:  # noqa: BLE001, S110
            pass

    def internal_error(self, where: str) -> None:
        if self.error is not None:
            return
        self.enabled = False
        exc = sys.exc_info()[1]
        self.error = f"{where}: {type(exc).__name__}: {exc}" if exc else where
        try:
            with open(os.path.join(self.run_dir, "agent.log"), "a") as f:
                f.write(f"fastenough checks (pid {os.getpid()}) disabled after an internal "
                        f"error in {where}:\n{traceback.format_exc()}\n")
        except Exception:  # noqa: BLE001, S110
            pass
        self.uninstall()

    # ------------------------------------------------------------------ hooks
    def _global_pre(self, module, args):
        self._pre(module, args, {})

    def _global_post(self, module, args, kwargs, output):
        self._post(module, args, kwargs, output)

    # Registered with kwargs. Both also accept the plain call torch makes when the
    # hook was taken off while torch was already looping over a copy of the hooks
    # (then the with_kwargs entry is gone: see yield_root).
    def _module_pre(self, module, args, kwargs=None):
        if self._probing:
            return  # a root called inside the probed model's forward
        self._pre(module, args, kwargs if kwargs is not None else {})

    def _module_post(self, module, args, *rest):
        if self._probing:
            return
        kwargs, output = rest if len(rest) == 2 else ({}, rest[0])
        self._post(module, args, kwargs, output)

    def _compiling(self) -> bool:
        # While dynamo traces, a hook body would be traced into the graph.
        try:
            return self.torch.compiler.is_compiling()
        except Exception:  # noqa: BLE001
            return False

    @property
    def forwards(self) -> int:
        """Root forwards seen: by our hooks, and by the agent for the roots it drives."""
        native = self._native.deferred_calls if self._native is not None else 0
        return (self._forwards_py + self._driven_counted + native
                + sum(h.deferred_calls for h in self._driven.values()))

    @_timed
    def _pre(self, module, args, kwargs) -> None:
        if self._compiling() or id(module) in self._driven:
            return
        key = id(module)
        if self.sampling and key in self._root_handles and key not in self._native_roots \
                and key not in self._reserved and self._depth == 0 and not self._compiled:
            if self._dynamo_counts()[0] > 0:
                self._compiled = True  # compiled code: our Python hooks stay
            else:
                self._to_native(module)  # this call goes on below
        if key in self._native_roots:
            if self._depth > 0:
                return  # a call inside an examined one
            # Sent here by the native hook (every SAMPLE_EVERY-th call), or the call
            # that put it in place: examined, with a forward hook for this call only.
            from fastenough.agent import step_hook

            self._forwards_py += 1
            self._depth = 1
            self._examining = True
            self.on_forward_pre(module, args, kwargs)
            step_hook.one_shot_post(module, self._module_post, with_kwargs=True)
            return
        self._depth += 1
        if self._depth == 1:
            self._forwards_py += 1
            self._examining = not self.sampling or self._forwards_py % SAMPLE_EVERY == 0
            if self._examining:
                self.on_forward_pre(module, args, kwargs)
            elif self.logits._mode is not None:
                self.logits.close()  # a window follows tensors up to the next forward

    @_timed
    def _post(self, module, args, kwargs, output) -> None:
        if self._compiling() or (id(module) in self._driven and self._depth == 0):
            return
        self._depth = max(0, self._depth - 1)
        if self._depth == 0 and self._examining:
            self._examining = False
            self.on_forward(module, args, kwargs, output)

    # The agent's model, once the agent defers its steps to a native hook
    # (agent/step_hook.py): each of our hooks would cost ~10 us a step there
    # (cold caches after the model), so we take ours off and the agent calls
    # live_call() for every SAMPLE_EVERY-th call, which is then examined.
    def yield_root(self, module, counter) -> None:
        from fastenough.agent import step_hook

        key = id(module)
        if key in self._driven:
            return
        self._driven[key] = counter
        self._native_roots.pop(key, None)
        self._unhook_root(key)
        if self._depth > 0:  # our pre of the call in progress ran: close it as before
            step_hook.one_shot_post(module, self._module_post, with_kwargs=True)

    def rediscover(self, dead_id: int) -> None:
        """The agent's main model was freed (agent/model_swap.py): what was kept
        under its id goes (a new module may get the same id), and the global
        hooks find the roots again."""
        if not self.enabled:
            return
        counter = self._driven.pop(dead_id, None)
        if counter is not None:
            self._driven_counted += counter.deferred_calls
        self._reserved.discard(dead_id)
        self.logits.new_model()
        self._batch_dims = {}
        self.sampling = False
        self._examine_until = self.examined + EXAMINE_AFTER_SWAP
        for key in list(self._root_handles):  # a clean slate: every root found again
            self._unhook_root(key)
        self._native_roots = {}
        self._root_calls = 0
        self._roots = {}
        self._depth = 0
        self._examining = False
        self._add_global_hooks()

    def reserve_root(self, module) -> None:
        self._reserved.add(id(module))

    def release_root(self, module) -> None:
        self._reserved.discard(id(module))

    def _to_native(self, module) -> bool:
        """Sampling: this root's Python hooks (pre and post, each ~10 us a call on
        a real step) make way for the shared native pre-hook. Called from our own
        pre-hook: the pre goes (torch has already called it for this call), the
        post goes (torch reads the forward hooks after forward)."""
        from fastenough.agent import step_hook

        if self._native is None:
            native = step_hook.make(self._module_pre, record=False)
            if native is None:
                return False
            native.live_every = SAMPLE_EVERY
            native.deferring = True
            self._native = native
        key = id(module)
        self._unhook_root(key)
        handle = module_hooks.add_pre(module, self._native.pre, with_kwargs=True)
        self._handles.append(handle)
        self._root_handles[key] = [handle]
        self._native_roots[key] = weakref.ref(module)
        return True

    def _unhook_root(self, key: int) -> None:
        for h in self._root_handles.pop(key, []):
            module_hooks.remove(h)
            if h in self._handles:
                self._handles.remove(h)

    def _native_to_python(self) -> None:
        """torch.compile compiled something: dynamo traces (and folds away) Python
        hooks, a native one would break its graph. Python hooks again on our roots."""
        roots, self._native_roots = self._native_roots, {}
        for key, ref in roots.items():
            self._unhook_root(key)
            m = ref()
            if m is not None:
                self._hook_root(m)

    def reclaim_root(self, module) -> None:
        """The agent's hook goes away: our own hooks on the root again."""
        counter = self._driven.pop(id(module), None)
        if counter is None:
            return
        self._driven_counted += counter.deferred_calls
        self._native_roots.pop(id(module), None)
        self._hook_root(module)

    def live_call(self, module, args, kwargs) -> None:
        """A call of a root the agent drives, picked by its native hook: examined."""
        from fastenough.agent import step_hook

        if not self.enabled or self._compiling() or self._depth > 0:
            return  # (depth: our own pre already took this call, before yield_root)
        self._forwards_py += 1
        self.on_forward_pre(module, args, kwargs)
        step_hook.one_shot_post(module, self._driven_post, with_kwargs=True)

    def _driven_post(self, module, args, kwargs, output) -> None:
        self.on_forward(module, args, kwargs, output)

    @_guard
    def on_forward_pre(self, module, args, kwargs) -> None:
        if _util.inside_a_transform(self.torch):
            self._t_fwd = 0
            return
        self._t_fwd = time.perf_counter_ns()
        self.logits.on_pre(module, args, kwargs)

    @_guard
    def on_forward(self, module, args, kwargs, output) -> None:
        torch = self.torch
        if _util.inside_a_transform(torch):
            return  # a forward inside torch.func.grad or vmap: not examined (_util)
        if self._t_fwd:
            ns = time.perf_counter_ns() - self._t_fwd
            (self.fwd_ns_steady if self.in_steady else self.fwd_ns).append(ns)
            self._t_fwd = 0
            kind = self.forward_kind(module, args)
            times = self.fwd_ns_by_kind.get(kind)
            if times is None and len(self.fwd_ns_by_kind) < FORWARD_KINDS:
                times = self.fwd_ns_by_kind[kind] = []
            if times is not None and len(times) < FORWARD_KIND_SAMPLES:
                times.append(ns)
        self.examined += 1
        if self._native_roots and not self._compiled and self._dynamo_counts()[0] > 0:
            self._compiled = True
            self._native_to_python()
        if not self.sampling and self.examined >= max(EXAMINE_ALL_FORWARDS,
                                                      self._examine_until):
            self.sampling = True
        if len(self._called_roots) < 8 and id(module) not in self._called_roots:
            self._called_roots[id(module)] = module
        if self._root_calls < DISCOVERY_ROOT_CALLS and self._handles:
            self._root_calls += 1
            self._roots[id(module)] = module
            # Moving hooks onto a compiled module would make dynamo recompile it.
            if self._root_calls == DISCOVERY_ROOT_CALLS and self._dynamo_counts()[0] == 0:
                self._switch_to_module_hooks()
        t = _util.first_tensor(args, torch) if args else None
        if t is None and kwargs:
            t = _util.first_tensor(list(kwargs.values()), torch)
        dim = self._batch_dims.get(id(module))
        if dim is None:
            from fastenough.agent.batch_size import seq_first

            dim = self._batch_dims[id(module)] = 1 if seq_first(module) else 0
        if t is not None and t.dim() > dim:
            self.batch_sizes[int(t.shape[dim])] += 1
        self.autograd.on_forward(module, args, kwargs, output)
        if (self.probe and self._probe_autograd is None and self.autograd.graph_outputs
                and self.backward_calls == 0):
            self._probe_autograd = (module, args, dict(kwargs))
        self._keep_eval_call(module, args, kwargs)
        if self.backward_calls and not self.opts.get("no_probe"):
            self.autograd.keep_site_call(lambda: self._eval_call_of(module, args, kwargs))
        self.train_mode.on_forward(module, args, kwargs, output)
        self.padding.on_forward(module, args, kwargs, output)
        self.outputs.on_forward(module, args, kwargs, output)
        self.logits.on_forward(module, args, kwargs, output)

    def _keep_eval_call(self, module, args, kwargs) -> None:
        """Keeps one call for the eval probe: the first that built a graph or ran
        in training mode in a run without backward so far, else the first of an
        evaluation stretch (a loop with no backward after training)."""
        if self.opts.get("no_probe"):
            return
        st = self.stretches
        if self.backward_calls == 0:
            if self._eval_call_stretch is not None:
                return  # one kept (or refused) already
        else:
            if (self._eval_call is not None and self._eval_call_stretch != st._start
                    and self._eval_call_stretch not in st.eval_starts):
                # Its stretch ended with a backward: training's first forward, not
                # an evaluation; its input goes now, not at exit.
                self._eval_call = None
            if st._announced != st._start or self._eval_call_stretch == st._start:
                return
        stretch = st._start
        graph = self.autograd.last_built
        if not graph and not module.training:
            return
        self._eval_call_stretch = stretch
        size = probe.input_bytes(self.torch, (args, kwargs))
        if size > probe.EVAL_CALL_MAX_INPUT_BYTES:
            self._eval_call = None
            self._eval_call_skip = (f"the evaluation's input ({size >> 20} MiB) is over the "
                                    f"{probe.EVAL_CALL_MAX_INPUT_BYTES >> 20} MiB the agent "
                                    "keeps for the probe")
            return
        self._eval_call = probe.EvalCall(self.torch, module, args, kwargs, graph)
        self._eval_call.forward_kind = self.forward_kind(module, args)

    def _eval_call_of(self, module, args, kwargs):
        """A call kept for the eval probe (None: its input is too large to keep)."""
        if probe.input_bytes(self.torch, (args, kwargs)) > probe.EVAL_CALL_MAX_INPUT_BYTES:
            return None
        call = probe.EvalCall(self.torch, module, args, kwargs, True)
        call.forward_kind = self.forward_kind(module, args)
        return call

    def forward_kind(self, module, args) -> tuple:
        """A forward's kind: its root and the rows of its first argument when
        that is a tensor (only a tensor's own shape is read: no attribute of a
        program's object runs)."""
        first = args[0] if args else None
        rows = -1
        if isinstance(first, self.torch.Tensor) and first.dim() > 0:
            rows = int(first.shape[0])
        return (id(module), rows)

    def called_roots(self) -> list:
        return list(self._called_roots.values())

    def _switch_to_module_hooks(self) -> None:
        for h in self._handles:
            module_hooks.remove(h)
        self._handles = []
        self._depth = 0
        for m in self._roots.values():
            if id(m) not in self._driven:
                self._hook_root(m)
        self._roots = {}

    def _hook_root(self, m) -> None:
        pre = module_hooks.add_pre(m, self._module_pre, with_kwargs=True)
        post = module_hooks.add_post(m, self._module_post, with_kwargs=True, always_call=True)
        self._handles += [pre, post]
        self._root_handles[id(m)] = [pre, post]

    # ------------------------------------------------------------------ agent calls
    @_guard
    def on_step_end(self, duration_ns: int | None = None, items: int | None = None,
                    end_ns: int | None = None, mode: str | None = None) -> None:
        self.steps += 1
        if self.in_steady:
            self.steady_steps += 1
            self.sync.on_steady_step(end_ns)
            if self.steady_steps >= self.examine_all_steady and not self.sampling \
                    and self.examined >= self._examine_until:
                self.sampling = True
            if duration_ns:
                self.step_ns.append(int(duration_ns))
        self.sync.note_step(mode)

    @_guard
    def on_steps_end(self, durations: list) -> None:
        """Steps the agent replays in a batch (deferred by its native hook): the
        same as on_step_end for each, in one call."""
        self.steps += len(durations)
        if self.in_steady:
            for _ in range(len(durations) if self.sync.active else 0):
                self.sync.on_steady_step()
            self.steady_steps += len(durations)
            if self.steady_steps >= self.examine_all_steady and not self.sampling \
                    and self.examined >= self._examine_until:
                self.sampling = True
            self.step_ns.extend(int(d) for d in durations if d)
        self.sync.note_step(sync_watch.UNKNOWN_MODE)

    @_guard
    def on_phase_end(self, name: str, mode: str | None = None) -> None:
        self.logits.close()
        # Once per phase and mode: a program that alternates training and
        # evaluation ends those phases every epoch, and a census walks every
        # object of the process.
        key = (name, mode)
        if key not in self._census_taken:
            self._census_taken.add(key)
            with self.torch.no_grad():
                self.census.take(name)["mode"] = mode
        self._eval_probe_at_edge(name)

    @_guard
    def on_steady_begin(self, mode: str | None = None) -> None:
        self.logits.close()
        self.in_steady = True
        self._dynamo_mark = self._dynamo_counts()
        self.sync.begin(mode)

    @_guard
    def on_steady_end(self) -> None:
        self.sync.end()
        self.in_steady = False
        if self._dynamo_mark is not None:
            now = self._dynamo_counts()
            self.recompiles_in_steady += max(0, now[0] - self._dynamo_mark[0])
            self.recompile_reasons = now[1]
            self._dynamo_mark = None

    def _dynamo_counts(self):
        dyn = sys.modules.get("torch._dynamo.utils")
        if dyn is None:
            return (0, [])
        c = dyn.counters
        graphs = int(c["stats"].get("unique_graphs", 0))
        reasons = [str(r) for r in list(c.get("recompiles", {}).keys())[:5]]
        return (graphs, reasons)

    # ------------------------------------------------------------------ figures
    def forwards_per_step(self) -> float:
        return self.forwards / self.steps if self.steps else 1.0

    def step_median_ns(self) -> float | None:
        m = _util.median(self.step_ns)
        if m:
            return m
        fwd = self._forward_median_ns()
        return fwd * self.forwards_per_step() if fwd else None

    def memory_now(self) -> dict:
        torch = self.torch
        doc: dict = {}
        if torch.cuda.is_initialized():
            dev = torch.cuda.current_device()
            alloc, res = torch.cuda.memory_allocated(dev), torch.cuda.memory_reserved(dev)
            doc.update({
                "device": f"cuda:{dev}", "allocated_bytes": alloc, "reserved_bytes": res,
                "alloc_peak_bytes": torch.cuda.max_memory_allocated(dev),
                "reserved_peak_bytes": torch.cuda.max_memory_reserved(dev),
                "capacity_bytes": torch.cuda.get_device_properties(dev).total_memory,
                "cache_and_fragmentation_bytes": res - alloc,
                "reserved_note": "reserved - allocated is the caching allocator's cache and "
                                 "fragmentation, not a leak"})
            peak = doc["reserved_peak_bytes"]
        else:
            import resource

            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            doc.update({"device": "cpu", "rss_bytes": memory.rss_bytes(), "rss_peak_bytes": peak,
                        "capacity_bytes": memory.mem_total_bytes()})
        if peak and peak > self.peaks.get("peak_bytes", 0):
            self.peaks = {"peak_bytes": peak, "capacity_bytes": doc.get("capacity_bytes"),
                          "device": doc["device"],
                          "alloc_peak_bytes": doc.get("alloc_peak_bytes"),
                          "reserved_peak_bytes": doc.get("reserved_peak_bytes")}
        return doc

    # ------------------------------------------------------------------ exit
    def at_exit(self) -> None:
        if self.finished or os.getpid() != self.pid:
            return
        self.finished = True
        try:
            self._finish()
        except Exception:  # noqa: BLE001
            self.internal_error("at_exit")
            try:  # noqa: SIM105
                self._write_files([])
            except Exception:  # noqa: BLE001, S110
                pass

    def _finish(self) -> None:
        if not self.enabled:
            self._write_files([])
            return
        self.logits.close()
        if self.in_steady:
            self.on_steady_end()
        for h in self._handles:
            module_hooks.remove(h)
        self._handles = []
        self.memory_now()
        if not self.census.phases:
            with self.torch.no_grad():
                self.census.take("exit")
        self.census.confirm_duplicates()
        self._run_eval_probe()
        if self.probe:
            self._run_probes()
        findings = self._decide_all()
        self.uninstall()
        self._write_files(findings)

    def _eval_probe_at_edge(self, phase: str) -> None:
        """The eval probe at a phase edge (the loop stands still there, and the
        pause is the tool's own, never a step's), while the model is alive: a
        program that frees its model before exit (a main() that returns) is
        priced all the same. Once, on the first edge after enough forwards of
        an evaluation: the kept call's stretch is an evaluation announced as
        such, or nothing was trained so far (the exit judges that again). A
        probe over its time budget (no forward ran) is tried again at a later
        edge, once the run is an eighth longer, and at exit."""
        call = self._eval_call
        if call is None or self._edge_probed or self.opts.get("no_probe") \
                or time.perf_counter_ns() < self._edge_retry_ns \
                or len(self.fwd_ns) + len(self.fwd_ns_steady) < EDGE_PROBE_MIN_FORWARDS \
                or call.ref() is None:
            return
        st = self.stretches
        if self.backward_calls and not (self._eval_call_stretch == st._start == st._announced):
            return
        if self._eval_probe_refused():
            return
        self._edge_probed = True
        # Mid-run, the graphs the probe keeps alive stay within the bound the
        # profiler window has (the program's memory peak must stay its own).
        base = memory.rss_bytes() or 0
        if self.torch.cuda.is_initialized():
            base = self.torch.cuda.memory_allocated()
        bound = int(max(EDGE_PROBE_MEMORY_BYTES, EDGE_PROBE_MEMORY_SHARE * base))
        res = self._eval_probe_now(call, bound)
        res["at"] = f"the end of the {phase} phase"
        self._edge_probe = (res, self._eval_call_stretch)
        if res.pop("budget", False):
            # No forward ran: a later edge has a larger budget. Tried again
            # once the run is an eighth longer (a loop that alternates training
            # and evaluation has an edge every step).
            self._edge_probed = False
            self._edge_retry_ns = time.perf_counter_ns() + self._elapsed_ns() // 8
        if "ns" in res:
            # Priced: its input goes now, not at exit.
            self._eval_call = None

    def _elapsed_ns(self) -> int:
        """The run so far: since the process started (its imports are the run's
        time too), else since the checks were installed."""
        mine = time.perf_counter_ns() - self._t0
        try:
            with open("/proc/self/stat") as f:
                start = int(f.read().rsplit(")", 1)[1].split()[19])
            since = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - \
                start * 1_000_000_000 // os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError, AttributeError):
            return mine
        return max(mine, since) if 0 <= since < 30 * 86400 * 10**9 else mine

    def _eval_probe_now(self, call, max_graph_bytes: int | None = None) -> dict:
        self._probe_kind = getattr(call, "forward_kind", None)
        fwd = self._forward_median_ns(self._probe_kind)
        self._probing = True
        try:
            res = probe.eval_probe(
                self.torch, call, forward_ns=fwd, asked=self.probe,
                elapsed_ns=self._elapsed_ns(),
                graph_bytes=max(self.autograd.graph_bytes, default=0),
                max_graph_bytes=max_graph_bytes)
        except Exception as e:  # noqa: BLE001 - an input the probe cannot replay
            res = {"skipped": f"the probe forward failed: {type(e).__name__}"}
        finally:
            self._probing = False
        return res

    def _run_eval_probe(self) -> None:
        """train-mode-in-eval and autograd-in-eval priced by the model's own
        forward timed as it ran and fixed (probe.eval_probe), when it is cheap
        (or asked for with --probe): at a phase edge (_eval_probe_at_edge) or
        at exit. A failed probe leaves the findings unpriced and the program
        alone."""
        edge, self._edge_probe = self._edge_probe, None
        if edge is not None and "ns" in edge[0]:
            # Priced at a phase edge: kept when its call was an evaluation's,
            # judged as at exit (a stretch that ended in a backward was not;
            # then the exit probes a call of its own, if it has one).
            if self.backward_calls:
                self.stretches.finish()
            if not self.backward_calls or edge[1] in self.stretches.eval_starts:
                self.probe_results["eval"] = edge[0]
                return
            edge = None
        self._run_eval_probe_at_exit()
        res = self.probe_results.get("eval")
        if edge is not None and (res is None or "skipped" in res):
            # Neither priced: the edge's reason, and the exit's when it differs.
            why = edge[0]["skipped"] + f" (at {edge[0]['at']})"
            if res is not None and res["skipped"] != edge[0]["skipped"]:
                why += f"; at exit: {res['skipped']}"
            self.probe_results["eval"] = {"skipped": why}

    def _run_eval_probe_at_exit(self) -> None:
        call, self._eval_call = self._eval_call, None
        if self.backward_calls:
            # A run that trains: only a call of its evaluation stretch is priced
            # (the first forward of training is kept too, before its backward),
            # or one of a line whose graphs no backward used (DQN's acting).
            self.stretches.finish()
            if self._eval_call_stretch not in self.stretches.eval_starts:
                call = next((s.call for s in self.autograd.unused_sites()
                             if s.call and s.call.ref() is not None), None)
                if call is None:
                    return
        if call is None:
            if self._eval_call_skip:
                self.probe_results["eval"] = {"skipped": self._eval_call_skip}
            return
        why = self._eval_probe_refused()
        if why:
            self.probe_results["eval"] = {"skipped": why}
            return
        res = self._eval_probe_now(call)
        res.pop("budget", None)
        res["at"] = "exit"
        self.probe_results["eval"] = res

    def _forward_median_ns(self, kind=None) -> float:
        """The run's median forward: of the forwards of `kind` (the probed call's
        root and batch rows) when three or more were timed, else of all."""
        like = self.fwd_ns_by_kind.get(kind) if kind is not None else None
        if like and len(like) >= 3:
            return _util.median(like)
        return _util.median(self.fwd_ns_steady) or _util.median(self.fwd_ns) or 0

    def _eval_probe_refused(self) -> str | None:
        if self.terminating:
            return "the run was ended by SIGTERM"
        if self._compiled or self._dynamo_counts()[0] > 0:
            # The fixed variants would recompile (seconds to minutes) at exit.
            return "torch.compile ran: a variant would recompile"
        dist = getattr(self.torch, "distributed", None)
        try:
            if dist is not None and dist.is_available() and dist.is_initialized() \
                    and dist.get_world_size() > 1:
                # DDP broadcasts buffers, FSDP gathers parameters in forward: a
                # forward on one rank alone at exit would wait for the others.
                return "a distributed job: a forward may hold collectives"
        except Exception:  # noqa: BLE001 - a process group being torn down
            return "a distributed job: a forward may hold collectives"
        return None

    def _run_probes(self) -> None:
        from fastenough.agent.checks import probe

        torch = self.torch
        grad = (torch.enable_grad, {})
        inf = (torch.inference_mode, {})
        if self._probe_autograd is not None and "eval" not in self.probe_results:
            m, a, k = self._probe_autograd
            self.probe_results["autograd"] = probe.ab(torch, m, a, k, grad, inf)
        if self._probe_autograd is not None:
            m, a, k = self._probe_autograd
            extra = probe.graph_extra_bytes(torch, m, a, k)
            if extra is not None:
                self.probe_results["autograd_bytes"] = extra
        ctx = torch.inference_mode if self.autograd.graph_outputs == 0 else torch.enable_grad
        if self.outputs.probe_call is not None:
            m, a, k = self.outputs.probe_call
            if self.outputs.wasted_cache_sites():
                self.probe_results["kv"] = probe.ab(torch, m, a, k, (ctx, {}),
                                                    (ctx, {"use_cache": False}))
            if any(self.outputs.requested.values()):
                self.probe_results["outputs"] = probe.ab(
                    torch, m, a, k, (ctx, {}),
                    (ctx, {"output_hidden_states": False, "output_attentions": False}))
        if self.logits.probe_call is not None:
            m, a, k = self.logits.probe_call
            w = max(self.logits.windows, key=lambda w: w["positions_read"] / w["positions"])
            rows = max(1, self.batch_sizes.most_common(1)[0][0] if self.batch_sizes else 1)
            keep = max(1, -(-w["positions_read"] // rows))
            self.probe_results["logits"] = probe.ab(torch, m, a, k, (ctx, {}),
                                                    (ctx, {"logits_to_keep": keep}))

    def _common(self) -> dict:
        # "forwards" is each check's own count of the forwards it examined;
        # forwards_total (every root forward) scales per-forward savings to the run.
        return {"forwards_per_step": self.forwards_per_step(),
                "step_median_ns": self.step_median_ns(), "forwards": self.examined,
                "forwards_total": self.forwards, "rank": self.rank}

    def _decide_all(self) -> list[dict]:
        out = []
        common = self._common()
        pr = self.probe_results

        def add(code, numbers, texts=None, where=None):
            n = dict(common)
            n.update({k: v for k, v in numbers.items() if v is not None})
            f = _util.decide(code, n, texts, where)
            if f is not None:
                out.append(f)

        self.stretches.finish()
        # (probe is imported with this module: an import at exit would turn the
        # exit status after an unhandled KeyboardInterrupt from -SIGINT into 1.)
        ev = pr.get("eval") or {}
        ev_n = probe.eval_savings(ev, self._forward_median_ns(self._probe_kind))
        ev_t = {"probe_skipped": ev["skipped"]} if "skipped" in ev else {}
        if "ns" in ev and ev.get("at"):
            ev_t["probe_at"] = ev["at"]
        n = self.autograd.decide_numbers()
        if "autograd" in pr:
            n["probe_grad_ns"], n["probe_inference_ns"] = pr["autograd"]
        n.update(ev_n.get("autograd", {}))
        if "autograd_bytes" in pr:
            n["probe_extra_bytes"] = pr["autograd_bytes"]
        where = self.stretches.where("graph_outputs", self.autograd.where)
        unused = n.get("unused_graph_forwards", 0)
        if unused:
            # The graphs no backward used, by line over the whole run: the
            # saving counts those forwards, not every forward of the run.
            if unused >= n.get("eval_stretch_forwards", 0):
                where = self.autograd.unused_sites()[0].where
            n["saving_forwards_total"] = unused
            if self.steps:
                n["saving_forwards_per_step"] = unused / self.steps
        add("autograd-in-eval", n, ev_t, where=[where])
        nums, texts = self.train_mode.decide_numbers()
        nums.update(ev_n.get("train", {}))
        texts.update(ev_t)
        add("train-mode-in-eval", nums, texts,
            [self.stretches.where("training_layers", self.train_mode.where)])
        n = self.outputs.kv_numbers()
        if "kv" in pr:
            n["probe_cache_ns"], n["probe_no_cache_ns"] = pr["kv"]
        add("kv-cache-in-scoring", n, where=[self.outputs.kv_where()])
        n = self.outputs.unused_numbers()
        if "outputs" in pr:
            n["probe_with_outputs_ns"], n["probe_without_outputs_ns"] = pr["outputs"]
        add("unused-outputs", n, where=[self.outputs.where])
        n = self.logits.numbers()
        if n is not None:
            if "logits" in pr:
                n["probe_full_ns"], n["probe_kept_ns"] = pr["logits"]
            add("full-vocab-logits", n, where=[self.logits.where])
        s = self.padding.summary()
        self.padding_summary = s
        if s is not None:
            add("padding-waste", dict(s), {"lengths_from": self.padding.source},
                [self.padding.where])
        # Weights are parameters and buffers (and storages they share): a group
        # of equal temporaries, or an optimizer's working copies (LBFGS's
        # flat_grad and prev_flat_grad), is no duplicated weight.
        dups = [d for d in self.census.duplicates.values()
                if any(g in ("parameters", "buffers") for g in d["groups"])]
        if dups:
            add("duplicate-weights", {
                "duplicate_groups": len(dups),
                "copies": max(d["copies"] for d in dups),
                "duplicate_bytes": sum((d["copies"] - 1) * d["nbytes"] for d in dups),
                "largest_storage_bytes": max(d["nbytes"] for d in dups),
                "peak_bytes": self.peaks.get("peak_bytes"),
                "capacity_bytes": self.peaks.get("capacity_bytes")},
                {"tensors": "; ".join(" = ".join(_copy_names(d)) for d in dups[:5])})
        batch = self.batch_sizes.most_common(1)[0][0] if self.batch_sizes else None
        mem = {k: v for k, v in self.peaks.items() if k != "device"}
        add("memory-headroom", dict(mem, batch_size=batch), {"device": self.peaks.get("device")})
        add("memory-near-limit", mem, {"device": self.peaks.get("device")})
        add("recompile-in-steady", {"recompiles_in_steady": self.recompiles_in_steady,
                                    "steady_steps": self.steady_steps},
            {"reasons": "; ".join(self.recompile_reasons)})
        for group in _sync_groups(self.sync.loop_sites()):
            # Per watched step of the mode the sites were read in (a loop of its
            # own); priced at the host time the calls block (sync_watch.py).
            site = group[0]
            steps = self.sync.steps_by_mode.get(site.get("mode"), 0)
            calls = sum(s["calls"] for s in group)
            add("sync-in-loop", {
                "calls": calls, "steps": steps or None,
                "calls_per_step": calls / steps if steps else None,
                "call_ns_total": sum(s["priced_ns"] for s in group),
                "on_device": 1 if site["on_device"] else 0,
                "wrapper_overhead_ns": self.sync.overhead_ns},
                {"kind": ", ".join(dict.fromkeys(s["kind"] for s in group)),
                 "inside": site.get("inside"), "caused_by": site.get("caused_by")},
                [s["where"] for s in group])
        return out

    def _write_files(self, findings: list[dict]) -> None:
        suffix = "" if self.rank in (None, 0) else f".rank{self.rank}"
        base = {"pid": self.pid, "rank": self.rank, "checks_error": self.error}
        _util.write_json_atomic(os.path.join(self.run_dir, f"checks{suffix}.json"), dict(
            base, schema="fastenough.checks/1", probe=self.probe, findings=findings,
            forwards=self.forwards, forwards_examined=self.examined, steps=self.steps,
            steady_steps=self.steady_steps,
            padding=getattr(self, "padding_summary", None),
            logits_windows=self.logits.windows, probe_ns=self.probe_results or None))
        _util.write_json_atomic(os.path.join(self.run_dir, f"census{suffix}.json"), dict(
            base, schema="fastenough.census/1", phases=self.census.phases,
            duplicates=list(self.census.duplicates.values()),
            duplicates_not_kept=self.census.diverged or None, peak=self.peaks or None))
        _util.write_json_atomic(os.path.join(self.run_dir, f"syncs{suffix}.json"), dict(
            base, schema="fastenough.syncs/1", **self.sync.doc()))


def _sync_groups(sites) -> list[list[dict]]:
    """The host-sync sites as findings: on the CPU the sites of one loop (one
    mode) in the user's own code make one finding with their lines as its
    places, most calls first (x-transformers' train_enwik8.py printed and
    logged loss.item() on two lines: two rows of 0.0% of a step each); a sync
    that waits for a device, or one inside a library, stays a finding of its
    own, with its own line and saving."""
    merged: dict = {}
    groups: list[list[dict]] = []
    for site in sorted(sites, key=lambda s: -s["calls"]):
        if site["on_device"] or site.get("inside"):
            groups.append([site])
            continue
        key = site.get("mode")
        if key not in merged:
            merged[key] = []
            groups.append(merged[key])
        merged[key].append(site)
    return groups


def _copy_names(dup: dict) -> list[str]:
    """The names of a duplicate group's tensors; a copy that is no parameter or
    buffer of a module is named by what it is."""
    kinds = {"other": "an unnamed tensor", "optimizer_state": "optimizer state"}
    return [kinds.get(name, name) for name in dup["tensors"]]


def _env_int(name: str) -> int | None:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None
