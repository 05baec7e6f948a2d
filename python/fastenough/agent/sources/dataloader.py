"""Steps from DataLoader batches: each __next__ of a DataLoader iterator on the
main thread begins a step. Once steady (no phase change possible, the profiler
window done or off, the checks' sync-watch sample over), a native recorder
takes the boundary (begin() before the fetch, finish(batch) after) and the
agent's Python code runs only once a second or every 256 batches (a live
call, which replays the others: StepEngine.drain).

Each DataLoader's set-up is noted once (dataset type, workers, pinned memory,
batch size): the report's advice for a loop that waits on its data depends on
it (an in-memory TensorDataset needs batched indexing, not workers).

A batch's mode is what its step does (issue 37, item 5). The flags say it
first (the main model's module.training and the grad mode), but a program
that never calls model.eval() and scores its test set with autograd on
(facebookresearch/dlrm's inference()) fetches test batches with the flags of
training: counted as training steps, they were timed and medianed with the
training (a 21.7 ms "train" median of 60 training and 56 test batches). So a
loader is told apart by what runs between its fetches: when two fetches in a
row of one dataset's batches saw no backward (torch.autograd.backward or
grad) and no optimizer step between them, that dataset feeds a forward-only
loop, and its batches are evaluation steps from then on (its first two are
not: they are how it is known); one backward or optimizer step between its
fetches makes it training again. While the native hook defers one dataset's
batches, another dataset's batches go live, so a test loop's fetches are
seen in Python. A model call in such a batch reads the same mode
(model_calls.py asks mode_of).
"""

from __future__ import annotations

import sys
import threading

from fastenough.agent import batch_size as bs
from fastenough.agent.steps import SRC_DATALOADER

MAX_LOADERS = 8
# Gaps without a backward or an optimizer step between fetches of one dataset,
# in a row, after which its batches are evaluation steps. Two, not one: a
# loop may skip a batch's backward now and then (a NaN loss, a warm-up batch).
FORWARD_ONLY_GAPS = 2
MAX_DATASETS = 64  # datasets whose gaps are kept


class DataLoaderSource:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.hook = None  # native recorder, while deferring
        self.wrapper = None  # the native wrapper of _BaseDataLoaderIter.__next__
        self.loaders: list[dict] = []  # the set-up of the DataLoaders seen
        self._seen: set[int] = set()
        # The forward-only loops (module docstring), by id() of their dataset.
        self.forward_only: set[int] = set()
        self._gaps: dict[int, int] = {}  # dataset -> gaps without training, in a row
        self._last: tuple[int, int, str] | None = None  # (dataset, training events, flags)
        self.current: int | None = None  # the dataset of the batch being fetched or used
        self._deferred_for: int | None = None  # the dataset the native hook defers
        self._autograd = None  # agent/autograd_watch.AutogradWatch
        # The user's line that iterates a loader, by mode (the first live fetch
        # in that mode): where a dataloader-bound finding made from the timed
        # steps' waits points (rundir/dataloader_wait.cc).
        self.sites: dict[str, dict] = {}

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
            if hook is not None and source._defers(args) and hook.begin():
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
            from fastenough.agent import autograd_watch

            # What runs between fetches: a backward (the optimizer source counts
            # the steps). Shared with the step timer and the checks.
            self._autograd = autograd_watch.shared(torch)

    def _defers(self, args) -> bool:
        """The native hook may take this fetch: its dataset's batches are the
        ones it defers (another dataset's go live, to be told apart)."""
        want = self._deferred_for
        return want is None or (bool(args) and id(getattr(args[0], "_dataset", None)) == want)

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
        flags = self._flags_mode()
        self.current = id(getattr(it, "_dataset", None))
        self._learn(self.current, flags)
        mode = self.mode_of(flags)
        if mode is not None:
            self.agent.observe_mode(mode)
            if mode not in self.sites:
                from fastenough.agent.checks._util import user_site

                self.sites[mode] = user_site() or {}
        self.agent.engine.dataloader_batch_begins()

    def _flags_mode(self) -> str | None:
        """The mode the flags say a batch is fetched in: the main model's
        module.training and the grad mode (a validation loop under no_grad is
        evaluation from its first fetch); None until the main model is known."""
        agent = self.agent
        ref = agent.model_calls.main_ref
        model = ref() if ref is not None else None
        if model is None:
            return None
        return "train" if model.training and agent.torch.is_grad_enabled() else "eval"

    def mode_of(self, flags: str | None) -> str | None:
        """The mode of the current batch's step: the flags', but evaluation for
        a forward-only loop's batch whose flags say training."""
        if flags == "train" and self.current is not None and self.current in self.forward_only:
            return "eval"
        return flags

    def _training_events(self) -> int | None:
        watch = self._autograd
        if watch is None:
            return None
        return watch.calls + self.agent.optimizer.steps_seen()

    def _learn(self, dataset: int, flags: str | None) -> None:
        """Between the last live fetch and this one: did a fetch of this same
        dataset, in the flags of training, see a backward or an optimizer step?"""
        events = self._training_events()
        if events is None:
            return
        last, self._last = self._last, (dataset, events, flags or "")
        if last is None or last[0] != dataset or last[2] != "train":
            return
        if events != last[1]:
            self._gaps[dataset] = 0
            self.forward_only.discard(dataset)
            return
        if dataset not in self._gaps and len(self._gaps) >= MAX_DATASETS:
            return
        self._gaps[dataset] = gaps = self._gaps.get(dataset, 0) + 1
        if gaps >= FORWARD_ONLY_GAPS:
            self.forward_only.add(dataset)

    def _batch(self, batch) -> None:
        self.agent.engine.dataloader_batch(*bs.batch_size(batch))

    def _exhausted(self) -> None:
        self.current = None  # the loop is over: later model calls are no batch's
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
                # begins): the native hook reads the main model's mode. So does a
                # batch of another dataset (before()), whose mode may differ
                # while the flags do not (a forward-only loop).
                hook.mode_module = agent.model_calls.main_ref
                hook.expect_train = 1 if agent.engine.mode == "train" else 0
                self._deferred_for = self.current
            else:
                self._deferred_for = None
            hook.deferring = want

    def stop_deferring(self) -> None:
        if self.hook is not None:
            self.hook.deferring = False
        self._deferred_for = None

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
