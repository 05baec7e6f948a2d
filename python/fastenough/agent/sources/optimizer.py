"""Steps from optimizer.step(): a global optimizer post-hook marks where a
training step ends. Once steady, a native recorder takes the place of our
Python post-hook under the same key of torch's hook dictionary (torch is
iterating over that dictionary while it calls us: a new key would break its
loop) and calls the Python hook once a second or every 256 steps to replay the
others.

With several optimizers (a GAN steps its discriminator's and its generator's
in every iteration) the steps are the iterations: only the steps of the
optimizer that stepped first end one (the pacer). Should another optimizer
step twice in a row without it (training moved on to a new optimizer), that
one paces from then on.
"""

from __future__ import annotations

import sys
import threading

from fastenough.agent import compile_info
from fastenough.agent.steps import SRC_OPTIMIZER


class OptimizerSource:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.handle = None  # our post-hook's handle in torch's global dictionary
        self.hook = None  # native recorder, while deferring
        self.pacer: int | None = None  # id() of the optimizer whose steps end the steps
        self._others_in_a_row = 0
        self.posts = 0  # optimizer steps this Python hook saw (the native one counts its own)

    def install(self, torch) -> None:
        import torch.optim.optimizer as optim_mod

        self.handle = optim_mod.register_optimizer_step_post_hook(self.post)
        self.agent.handles.append(self.handle)

    def post(self, optimizer, args, kwargs) -> None:
        self.posts += 1
        agent = self.agent
        if compile_info.is_compiling() or not agent.enabled \
                or threading.get_ident() != agent.main_ident:
            return
        own = agent.own
        t0 = own.enter()
        try:
            agent.timer.optimizer_end()
            if not self._paces(id(optimizer)):
                return  # another optimizer of the same iteration
            # The step ends in the current mode: model.eval() while training (frozen
            # batch norm) must not make every step a mode switch.
            agent.engine.end_step(SRC_OPTIMIZER, None, None)
        except Exception:  # noqa: BLE001
            agent.fail("optimizer")
        finally:
            own.leave(t0)

    def _paces(self, key: int) -> bool:
        if self.pacer is None:
            self.pacer = key
        if key == self.pacer:
            self._others_in_a_row = 0
            return True
        self._others_in_a_row += 1
        if self._others_in_a_row < 2:
            return False
        self.pacer = key
        self._others_in_a_row = 0
        if self.hook is not None:
            self.hook.only_id = key
        return True

    def update_deferral(self) -> None:
        agent = self.agent
        want = agent.may_defer(SRC_OPTIMIZER)
        if want and self.hook is None:
            self.hook = agent.recorder(self.post)
            self.hook.only_id = self.pacer or 0
        if self.hook is not None and self.hook.deferring != want:
            self.swap(want)

    def swap(self, native: bool) -> None:
        hooks = getattr(sys.modules.get("torch.optim.optimizer"),
                        "_global_optimizer_post_hooks", None)
        if hooks is None or self.handle is None or self.hook is None \
                or self.handle.id not in hooks:
            return
        self.hook.deferring = native
        hooks[self.handle.id] = self.hook.pre if native else self.post

    def stop_deferring(self) -> None:
        if self.hook is not None and self.hook.deferring:
            self.swap(False)

    def deferred_calls(self) -> int:
        return self.hook.deferred_calls if self.hook is not None else 0

    def steps_seen(self) -> int:
        """Every optimizer step so far, in Python or in the native hook."""
        return self.posts + self.deferred_calls()
