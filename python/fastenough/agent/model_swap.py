"""The main model replaced: find the new one.

Once the agent knows the main model it hooks that model alone (the global
module hooks cost every submodule call). A program that then replaces the
model (`model = torch.load(path)` before generating, a fresh `from_pretrained`
for the next checkpoint of a sweep) would go unseen. When the locked model is
freed, discovery starts again: the global hooks come back, for the step
sources and for the checks, and the next outermost calls name the new model.

The freeing is seen by weakref.finalize, which can run anywhere, also inside
torch's own loop over the global hook dictionaries (a garbage collection
triggered there). Registering a hook at that moment would make torch raise
"OrderedDict mutated during iteration" in the user's forward. So the callback
only starts a short-lived thread, and the thread re-arms while the main thread
stands at a bytecode boundary outside torch.nn's module code and outside the
agent (it holds the GIL while it looks, so what it sees holds until it has
registered the hooks, each registration a single dictionary store).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import weakref

_AGENT_DIR = os.path.dirname(os.path.abspath(__file__))
_WAIT_S = 600.0  # a main thread that never leaves module calls: give up after this
# Looks at the main thread's stack in quick succession (each at its next GIL
# release) before backing off to sleeps: about a second of a busy loop at most.
_QUICK_LOOKS = 5000


class ModelSwapWatch:
    def __init__(self, agent, rearm) -> None:
        self.agent = agent
        self.rearm = rearm  # rearm(id of the freed model), once the main thread is at a safe point
        self._watched: weakref.finalize | None = None
        self._watched_id: int | None = None
        self.swaps = 0  # models freed and rediscovery armed (agent json)

    def watch(self, module) -> None:
        if self._watched_id == id(module) and self._watched is not None and self._watched.alive:
            return
        if self._watched is not None:
            self._watched.detach()
        self._watched_id = id(module)
        self._watched = weakref.finalize(module, self._gone, os.getpid(), id(module))
        self._watched.atexit = False  # at exit there is nothing to find any more

    def forget(self) -> None:
        if self._watched is not None:
            self._watched.detach()
        self._watched = None
        self._watched_id = None

    def _gone(self, pid: int, dead_id: int) -> None:
        self._watched = None
        self._watched_id = None
        agent = self.agent
        if pid != os.getpid() or sys.is_finalizing() or agent.finished or not agent.enabled:
            return
        # If no thread can start, the new model goes unseen (as before this watch).
        with contextlib.suppress(Exception):
            threading.Thread(target=self._rearm_when_safe, args=(dead_id,),
                             name="fastenough-model-swap", daemon=True).start()

    def _rearm_when_safe(self, dead_id: int) -> None:
        agent = self.agent
        module_py = _module_py()
        deadline = time.monotonic() + _WAIT_S
        pause = 0.0005
        quick = _QUICK_LOOKS
        while time.monotonic() < deadline:
            if agent.finished or not agent.enabled:
                return
            if _at_safe_point(agent.main_ident, module_py):
                try:
                    self.rearm(dead_id)
                    self.swaps += 1
                except Exception:  # noqa: BLE001
                    agent.fail("model-swap")
                return
            if quick > 0:
                # Look again at the main thread's next release of the GIL (every
                # torch op releases it): most are inside the model's forward, but
                # one in ten or so is in the program's own loop between calls.
                # Sleeping between looks instead lost the first 117 of 150
                # generation steps of a reloaded model on a busy machine.
                quick -= 1
                time.sleep(0)
                continue
            time.sleep(pause)
            pause = min(pause * 2, 0.01)


def _module_py() -> str:
    from torch.nn.modules import module

    return os.path.abspath(module.__file__)


def _at_safe_point(main_ident: int, module_py: str) -> bool:
    frame = sys._current_frames().get(main_ident)
    if frame is None:
        return False  # the main thread is gone: nothing to re-arm for
    while frame is not None:
        name = frame.f_code.co_filename
        if name == module_py or name.startswith(_AGENT_DIR):
            return False
        frame = frame.f_back
    return True
