"""Training or evaluation: model.train() / model.eval() on the main model.

nn.Module.train is wrapped (eval() calls it too); the outermost call on the
main model (the root with the most parameters, as the model-call source picks
it) with a mode other than the current one is a mode switch at that moment. A
call on another module (an EMA copy, a frozen teacher) switches nothing. The
wrapper runs only when the program changes a module's mode: never in the
steady loop of a well-behaved program.
"""

from __future__ import annotations

import threading

from fastenough.agent.phases import now


class ModeWatch:
    def __init__(self, agent) -> None:
        self.agent = agent
        self._depth = 0

    def install(self, torch) -> None:
        orig = torch.nn.Module.train
        watch = self

        def train(module, mode: bool = True):
            watch._depth += 1
            try:
                return orig(module, mode)
            finally:
                watch._depth -= 1
                if watch._depth == 0:
                    watch._changed(module, bool(mode))

        train.__wrapped__ = orig
        train.__doc__ = orig.__doc__
        self.agent.patch(torch.nn.Module, "train", train)

    def _changed(self, module, training: bool) -> None:
        agent = self.agent
        if not agent.enabled or threading.get_ident() != agent.main_ident \
                or agent.torch is None:
            return
        try:
            calls = agent.model_calls
            key = id(module)
            if calls.main_root is not None and key != calls.main_root:
                n = calls.root_params.get(key)
                if n is None:
                    n = calls.root_params[key] = sum(p.numel() for p in module.parameters())
                if n <= calls.main_root_params:
                    return  # not the main model
            mode = "train" if training else "eval"
            engine = agent.engine
            if mode != engine.mode:
                t = now()
                engine.switch_mode(mode, t, first=t)
        except Exception:  # noqa: BLE001
            agent.fail("mode")
