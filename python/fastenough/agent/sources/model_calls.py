"""The main model's calls: the lowest step source, and where the mode is read.

Until the main model is known, torch's global module hooks see every module
call; the outermost calls are roots, and steps follow the main model only: the
root with the most parameters seen so far (a loss or metric module called at
top level between model calls is no step; of two equal models the first one
called stays, run after run). After LOCK_ROOT_CALLS calls of the same main
model the global hooks, which cost every submodule call, are replaced by hooks
on that model alone (a bigger model that appears only later then goes unseen,
unless the first is freed: model_swap.py); those also see keyword arguments
(model(**batch)). In the steady loop the only hook left on the model is a
native pre-hook that records steps in a buffer (step_hook.py) and calls back
now and then ("live" calls).

The mode of the program (training or evaluation) is read here, where it is
true: module.training of the main model and torch's grad mode at each of its
calls (the native hook goes live when they change). Not from model.train():
Lightning, for one, restores module.training by assignment. So the hooks stay
on the model also when a higher step source (an optimizer, a DataLoader) makes
the steps: they then record nothing and only watch the mode.
"""

from __future__ import annotations

import threading
import weakref

from fastenough.agent import batch_size as bs
from fastenough.agent import compile_info, module_hooks
from fastenough.agent.phases import now
from fastenough.agent.steps import SRC_MODULE

LOCK_ROOT_CALLS = 3


class ModelCallSource:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.main_ident = agent.main_ident
        self.depth = 0
        self.root_params: dict[int, int] = {}
        self.main_root: int | None = None
        self.main_root_params = -1
        self.main_root_calls = 0
        self.locked = False
        self.handles: list = []  # global hooks, or the hooks on the locked model
        self.step_hook = None  # native pre-hook on the locked model (step_hook.py)
        self.post_handle = None  # the Python post-hook on it, while not deferring
        self.deferred_before = 0  # steps deferred by native hooks since dropped
        self.model_ref = None  # weak reference to the locked model
        self.main_ref = None  # weak reference to the main model, locked or not
        self.root_calls = 0  # the main model's outermost calls seen in Python
        self.call_sites: dict[str, dict] = {}  # the user's line of the main model's calls
        self.sites_seen: set[str] = set()  # modes whose site the current model set
        self.last_post: tuple[int, int] | None = None  # end of the last outermost call
        self.batch_dim = 0  # 1 for sequence-first models (batch_size.seq_first)
        self._batch_size = bs.batch_size

    # ------------------------------------------------------------------ hooks
    def install(self) -> None:
        self.locked = False
        self.main_root_calls = 0
        self.depth = 0
        self.handles = [module_hooks.add_global_pre(self.pre),
                        module_hooks.add_global_post(self.post, always_call=True)]

    def remove(self) -> None:
        """Model calls are no steps now (a higher source took over): every hook goes."""
        for h in self.handles:
            _remove(h)
        self.handles = []
        self.post_handle = None
        self.drop_step_hook()

    def ensure(self) -> None:
        """Model calls may be steps again (a mode whose source is not known yet)."""
        if self.handles:
            return
        model = self.model_ref() if self.model_ref is not None else None
        if self.locked and model is not None:
            self.handles = self._model_hooks(model, native=True)
        else:
            self.install()

    def pre(self, module, args, kwargs=None) -> None:
        agent = self.agent
        if compile_info.is_compiling() or not agent.enabled \
                or threading.get_ident() != self.main_ident or module_hooks.muted():
            return
        own = agent.own
        t0 = own.enter()
        try:
            hook = self.step_hook
            if hook is not None and hook.deferring:
                # Sent here by the native hook, which sees outermost calls only and
                # keeps no depth; a depth left open by a call that raised is reset.
                self.depth = 0
            self.depth += 1
            if self.depth == 1:
                self._root_call(module, args, kwargs)
        except Exception:  # noqa: BLE001
            agent.fail("module")
        finally:
            own.leave(t0)

    def post(self, module, args, output) -> None:
        if compile_info.is_compiling() or not self.agent.enabled \
                or threading.get_ident() != self.main_ident:
            return
        try:
            self.depth -= 1
            if self.depth <= 0:
                self.depth = 0
                self.last_post = now()
        except Exception:  # noqa: BLE001
            self.agent.fail("module")

    def _root_call(self, module, args, kwargs) -> None:
        t = now()
        agent = self.agent
        if agent.window.active:
            # A call of a root model is a safe point for a stop the memory
            # watchdog asked for (profile_window.ProfileWindow.safe_point).
            agent.window.safe_point()
        engine = agent.engine
        if self.step_hook is not None:
            engine.drain()
        key = id(module)
        if key != self.main_root or not self.locked:
            n = self.root_params.get(key)
            if n is None:
                n = sum(p.numel() for p in module.parameters())
                self.root_params[key] = n
            if self.main_root is None or n > self.main_root_params:
                self.main_root, self.main_root_params, self.main_root_calls = key, n, 0
                self.batch_dim = 1 if bs.seq_first(module) else 0
                self.main_ref = weakref.ref(module)
            elif key != self.main_root:
                return
        self.root_calls += 1
        mode = "train" if module.training and agent.torch.is_grad_enabled() else "eval"
        # A forward-only loop's batch is evaluation whatever the flags (dataloader.py).
        mode = agent.dataloader.mode_of(mode)
        if mode != engine.mode:
            engine.switch_mode(mode, t, first=t)
        if mode not in self.sites_seen:
            from fastenough.agent.checks._util import user_site

            # A replaced model's own call (a generation loop after training) is
            # the line that its mode's findings name from then on.
            self.call_sites[mode] = user_site() or {}
            self.sites_seen.add(mode)
        if engine.current == SRC_MODULE or engine.accept(SRC_MODULE, t):
            agent.check_fail("module")
            t = engine.close_open(t)
            items, tokens = self._batch_size(args if args or not kwargs else kwargs,
                                             self.batch_dim)
            engine.open(t, items, tokens)
        if self.locked:
            self._update_deferral(module, args, kwargs)
            return
        self.main_root_calls += 1
        # Not once torch.compile has compiled something: its guards check the global
        # hooks, so removing them would recompile (inside compiled code the hooks
        # cost nothing anyway: see compile_info.is_compiling).
        if self.main_root_calls == LOCK_ROOT_CALLS and self.handles \
                and not compile_info.dynamo_compiled():
            for h in self.handles:
                _remove(h)
            self.depth = 0
            self.locked = True
            self.handles = self._model_hooks(module, native=True)

    @property
    def is_step_source(self) -> bool:
        return self.agent.engine.current == SRC_MODULE

    # ------------------------------------------------------------------ the locked model
    def _model_hooks(self, module, native: bool) -> list:
        """The hooks on the locked model: a native pre-hook that can defer the
        per-step work (step_hook.py) or the Python one, and the Python post-hook
        (kept in post_handle: taken off while the native hook defers)."""
        self.drop_step_hook()
        self.model_ref = weakref.ref(module)
        agent = self.agent
        agent.model_swap.watch(module)
        native = native and bool(agent.opts.get("defer_steps", True))
        hook = self.step_hook = agent.recorder(self.pre) if native else None
        if hook is not None:
            hook.batch_dim = self.batch_dim
            if agent.checks is not None:
                agent.checks.reserve_root(module)
        pre = module_hooks.add_pre(module, hook.pre if hook is not None else self.pre,
                                   with_kwargs=True)
        self.post_handle = module_hooks.add_post(module, self._locked_post, always_call=True)
        return [pre, self.post_handle]

    def _locked_post(self, module, args, output) -> None:
        self.post(module, args, output)

    def rediscover(self) -> None:
        """The locked model was freed (model_swap.py): the main model is found
        again by the global hooks, if model calls are the step source now (else
        at the next ensure()). The step left open by its last call ends at its
        last return."""
        engine = self.agent.engine
        engine.drain()
        engine.finish_open(self.last_post)
        active = bool(self.handles)
        for h in self.handles:
            _remove(h)
        self.handles = []
        self.post_handle = None
        self.drop_step_hook()
        self.locked = False
        self.main_root, self.main_root_params, self.main_root_calls = None, -1, 0
        self.root_params = {}  # ids of freed modules are reused by new ones
        self.sites_seen = set()
        self.model_ref = self.main_ref = None
        if active:
            self.install()

    def drop_step_hook(self) -> None:
        """The native hook goes (another step source took over, or torch.compile):
        its count is kept, and the checks hook the model themselves again."""
        hook, self.step_hook = self.step_hook, None
        if hook is None:
            return
        self.deferred_before += hook.deferred_calls
        module = self.model_ref() if self.model_ref is not None else None
        checks = self.agent.checks
        if checks is not None and module is not None:
            if hook.deferring:
                checks.reclaim_root(module)
            checks.release_root(module)
        hook.deferring = False

    def set_recording(self, on: bool) -> None:
        """Whether the native hook records step boundaries (model calls are the
        step source) or only watches the mode."""
        hook = self.step_hook
        if hook is not None and hook.record != on:
            self.agent.engine.drain()
            hook.record = on

    def calls_seen(self) -> int:
        """The main model's outermost calls so far, in Python or the native hook."""
        return self.root_calls + self.deferred_calls()

    def deferred_calls(self) -> int:
        hook = self.step_hook
        return self.deferred_before + (hook.deferred_calls if hook is not None else 0)

    def stop_deferring(self) -> None:
        """Every call goes to Python again (a mode switch: the next boundary decides)."""
        hook = self.step_hook
        if hook is not None and hook.deferring:
            hook.deferring = False
            module = self.model_ref() if self.model_ref is not None else None
            checks = self.agent.checks
            if checks is not None and module is not None:
                checks.reclaim_root(module)
            if module is not None and self.post_handle is None:
                self.post_handle = module_hooks.add_post(module, self._locked_post,
                                                         always_call=True)
                self.handles.append(self.post_handle)

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

        hook = self.step_hook
        if hook is None:
            return
        agent = self.agent
        checks = agent.checks
        if compile_info.dynamo_compiled():
            agent.engine.drain()
            for h in self.handles:
                _remove(h)
            # This very call's post goes to the new Python post-hook (torch reads the
            # forward hooks after forward) and closes the depth this call opened.
            self.handles = self._model_hooks(module, native=False)
            return
        source = self.is_step_source
        # Model calls that make no steps only watch the mode: the native hook
        # records nothing and goes live when the mode changes.
        want = agent.may_defer(SRC_MODULE) if source else agent.may_watch()
        hook.record = source
        if want and not hook.deferring:
            hook.deferring = True
            hook.expect_train = 1 if agent.engine.mode == "train" else 0
            if checks is not None:
                from fastenough.agent.checks.registry import SAMPLE_EVERY

                hook.live_every = SAMPLE_EVERY
                checks.yield_root(module, hook)
        elif not want and hook.deferring:
            hook.deferring = False
            if checks is not None:
                checks.reclaim_root(module)
        if want:
            if self.post_handle is not None:  # no post-hook while deferring ...
                _remove(self.post_handle)
                self.handles.remove(self.post_handle)
                self.post_handle = None
            step_hook.one_shot_post(module, self._locked_post)  # ... but for this call
            if checks is not None:
                checks.live_call(module, args, kwargs if kwargs is not None else {})
        elif self.post_handle is None:
            self.post_handle = module_hooks.add_post(module, self._locked_post,
                                                     always_call=True)
            self.handles.append(self.post_handle)


def _remove(handle) -> None:
    try:  # noqa: SIM105 - contextlib costs an import on this path
        module_hooks.remove(handle)
    except Exception:  # noqa: BLE001, S110 - a handle of a module already gone
        pass
