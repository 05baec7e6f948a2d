"""Steps from DataLoader batches: each __next__ of a DataLoader iterator on the
main thread begins a step. Once steady (no phase change possible, the profiler
window done or off, the checks' sync-watch sample over), a native recorder
takes the boundary (begin() before the fetch, finish(batch) after) and the
agent's Python code runs only once a second or every 256 batches (a live
call, which replays the others: StepEngine.drain).

Each DataLoader's set-up is noted once (dataset type, workers, pinned memory,
batch size): the report's advice for a loop that waits on its data depends on
it (an in-memory TensorDataset needs batched indexing, not workers).
"""

from __future__ import annotations

import sys
import threading

from fastenough.agent import batch_size as bs
from fastenough.agent.steps import SRC_DATALOADER

MAX_LOADERS = 8


class DataLoaderSource:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.hook = None  # native recorder, while deferring
        self.wrapper = None  # the native wrapper of _BaseDataLoaderIter.__next__
        self.loaders: list[dict] = []  # the set-up of the DataLoaders seen
        self._seen: set[int] = set()

    def install(self, torch) -> None:
        import torch.utils.data.dataloader as dl_mod

        from fastenough.agent import passthrough

        cls = dl_mod._BaseDataLoaderIter
        source = self
        agent = self.agent
        main = agent.main_ident
        deferred, live = 1, 2  # what before() did, handed to after() and on_error()

        def before(args, kwargs):
            hook = source.hook
            if hook is not None and hook.begin():
                # Steady and deferring: the native hook has the boundary; it takes
                # the batch size after the fetch.
                return deferred
            if agent.enabled and threading.get_ident() == main:
                source._guarded(source._begins, args[0])
                return live
            return None

        def after(token, batch, ns):
            if token == deferred:
                source.hook.finish(batch)
            elif token == live and agent.enabled:
                agent.timer.add_data(ns)
                source._guarded(source._batch, batch)

        def on_error(token, exc):
            if token == deferred:
                source.hook.finish(None)
            if token is not None and isinstance(exc, StopIteration) and agent.enabled:
                source._guarded(source._exhausted)

        # Native: the program's tracebacks through next(it) (a dataset that
        # raises, a worker that died) show no frame of ours.
        wrapper = passthrough.wrap(cls.__next__, before=before, after=after, on_error=on_error)
        if wrapper is not None:
            self.wrapper = wrapper
            agent.patch(cls, "__next__", wrapper)

    def _guarded(self, fn, *args) -> None:
        own = self.agent.own
        t0 = own.enter()
        try:
            fn(*args)
        except Exception:  # noqa: BLE001
            self.agent.fail("dataloader")
        finally:
            own.leave(t0)

    def _begins(self, it) -> None:
        if id(it) not in self._seen and len(self.loaders) < MAX_LOADERS:
            self._seen.add(id(it))
            self.loaders.append(describe(it))
        mode = self._mode()
        if mode is not None:
            self.agent.observe_mode(mode)
        self.agent.engine.dataloader_batch_begins()

    def _mode(self) -> str | None:
        """The mode a batch is fetched in: the main model's module.training and
        the grad mode (a validation loop under no_grad is evaluation from its
        first fetch); None until the main model is known."""
        agent = self.agent
        ref = agent.model_calls.main_ref
        model = ref() if ref is not None else None
        if model is None:
            return None
        return "train" if model.training and agent.torch.is_grad_enabled() else "eval"

    def _batch(self, batch) -> None:
        self.agent.engine.dataloader_batch(*bs.batch_size(batch))

    def _exhausted(self) -> None:
        self.agent.engine.drain()
        self.agent.engine.dataloader_exhausted()

    def update_deferral(self) -> None:
        agent = self.agent
        want = agent.may_defer(SRC_DATALOADER)
        if want and self.hook is None:
            self.hook = agent.recorder(None)
        hook = self.hook
        if hook is not None and hook.deferring != want:
            if want:
                # A batch fetched in the other mode goes live (an evaluation loop
                # begins): the native hook reads the main model's mode.
                hook.mode_module = agent.model_calls.main_ref
                hook.expect_train = 1 if agent.engine.mode == "train" else 0
            hook.deferring = want

    def stop_deferring(self) -> None:
        if self.hook is not None:
            self.hook.deferring = False

    def deferred_calls(self) -> int:
        return self.hook.deferred_calls if self.hook is not None else 0


def describe(it) -> dict:
    """The set-up of the DataLoader behind iterator `it`."""
    ds = getattr(it, "_dataset", None)
    info = {"dataset": type(ds).__name__ if ds is not None else None,
            "num_workers": getattr(it, "_num_workers", None),
            "pin_memory": bool(getattr(it, "_pin_memory", False)),
            "batch_size": None, "in_memory": False}
    sampler = getattr(it, "_index_sampler", None)
    info["batch_size"] = getattr(sampler, "batch_size", None)
    data = sys.modules.get("torch.utils.data")
    tensor_ds = getattr(data, "TensorDataset", None) if data is not None else None
    # A TensorDataset holds its tensors in memory: each item is an index into them.
    info["in_memory"] = tensor_ds is not None and isinstance(ds, tensor_ds)
    return info
