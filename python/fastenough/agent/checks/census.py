"""Memory census at phase ends: every live tensor storage reachable from modules,
optimizer state and the garbage collector, counted once per (device, untyped
storage data_ptr) with the storage's nbytes (views and slices share storage),
grouped as parameters, buffers, optimizer state and other. Equal-content
storages resident more than once are found by a hash of sampled bytes (the core
groups candidates) and confirmed by a full comparison, slice by slice. The census
holds references only while it runs and never copies a storage: a model of any
size costs it the object walk and 256 sampled bytes per large storage."""

from __future__ import annotations

import gc
import hashlib
import time
import weakref

DUP_MIN_BYTES = 64 * 1024
SAMPLE = 256
COMPARE_SLICE = 16 << 20  # bytes compared at a time when confirming a duplicate


def _key(t) -> tuple[str, int]:
    return (str(t.device), t.untyped_storage().data_ptr())


class Census:
    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.phases: list[dict] = []
        self.duplicates: dict[tuple, dict] = {}  # by sorted keys of the group
        self._dup_refs: dict[tuple, list] = {}  # weak references to each group's tensors
        self.diverged: list[dict] = []  # groups equal at one census, not at the end
        self._kinds: dict[type, int] = {}  # type -> 0 other, 1 tensor, 2 module, 3 optimizer

    def take(self, phase: str) -> dict:
        """The census now. The loop stands still while it runs (a phase edge), so
        it is kept cheap: one pass over the collector's objects, classified by
        type, and a full garbage collection only when the pass found duplicates
        (garbage in reference cycles would otherwise be counted as resident, and
        flagged as copies, until the collector happens to run)."""
        t0 = time.monotonic_ns()
        self.confirm_duplicates()
        doc = self._census(phase, t0)
        if doc["duplicates"]:
            self.phases.pop()
            gc.collect()
            doc = self._census(phase, t0)
        return doc

    def _census(self, phase: str, t0: int) -> dict:
        objs = gc.get_objects()
        tensors, modules, optims = [], [], []
        self._scan(objs, tensors, modules, optims)
        del objs
        self._after_scan(phase, t0, tensors, modules, optims)
        return self.phases[-1]

    def _scan(self, objs, tensors, modules, optims) -> None:
        # One dictionary look-up per object: what each type is, worked out once
        # (three isinstance calls per object cost ~0.3 s in a transformers process).
        torch = self.torch
        kinds = self._kinds
        lists = (None, tensors, modules, optims)
        for o in objs:
            t = type(o)
            kind = kinds.get(t)
            if kind is None:
                kind = kinds[t] = _kind_of(torch, t)
            if kind:
                lists[kind].append(o)

    def _after_scan(self, phase, t0, tensors, modules, optims) -> None:
        torch = self.torch
        storages: dict[tuple, dict] = {}

        def add(t, group, name):
            try:
                if t.is_meta or t.layout != torch.strided:
                    return
                k = _key(t)
            except Exception:  # noqa: BLE001
                return
            s = storages.get(k)
            if s is None:
                storages[k] = {"t": t, "group": group, "names": [name] if name else [],
                               "nbytes": t.untyped_storage().nbytes()}
            elif name and len(s["names"]) < 4 and name not in s["names"]:
                s["names"].append(name)

        child_ids = {id(c) for m in modules for c in m.children()}
        # Roots the program called first (they get plain names), then any other.
        called = self.reg.called_roots()
        roots = called + [m for m in modules
                          if id(m) not in child_ids and all(m is not c for c in called)]
        inference_names = []
        for i, m in enumerate(roots):
            prefix = type(m).__name__ if i < len(called) else f"{type(m).__name__}#{i}"
            for n, p in m.named_parameters(remove_duplicate=False):
                add(p, "parameters", f"{prefix}.{n}")
                if p.is_inference():
                    inference_names.append(f"{prefix}.{n}")
            for n, b in m.named_buffers(remove_duplicate=False):
                add(b, "buffers", f"{prefix}.{n}")
                if b.is_inference():
                    inference_names.append(f"{prefix}.{n}")
        for m in roots[: len(called)]:
            # Plain tensors kept as module attributes (not parameters or buffers).
            for mn, sub in m.named_modules():
                for an, v in vars(sub).items():
                    if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter):
                        add(v, "other", ".".join(x for x in (type(m).__name__, mn, an) if x))
        for o in optims:
            for st in o.state.values():
                for n, v in (st.items() if isinstance(st, dict) else []):
                    if isinstance(v, torch.Tensor):
                        add(v, "optimizer_state", f"{type(o).__name__}.state.{n}")
        for t in tensors:
            add(t, "other", None)
        groups = {g: {"storages": 0, "bytes": 0}
                  for g in ("parameters", "buffers", "optimizer_state", "other")}
        by_device: dict[str, int] = {}
        for (dev, _), s in storages.items():
            groups[s["group"]]["storages"] += 1
            groups[s["group"]]["bytes"] += s["nbytes"]
            by_device[dev] = by_device.get(dev, 0) + s["nbytes"]
        dups = self._duplicates(storages)
        doc = {"phase": phase, "wall_ns": time.time_ns(), "groups": groups,
               "storages": len(storages), "bytes_by_device": by_device,
               "root_modules": [type(m).__name__ for m in roots][:20],
               "optimizers": [type(o).__name__ for o in optims],
               "duplicates": dups,
               "inference_tensors_in_modules": inference_names[:50],
               "inference_note": (
                   "parameters/buffers created under inference_mode cannot be updated in "
                   "place outside it (e.g. running stats, caches, fine-tuning)")
               if inference_names else None}
        doc.update(self.reg.memory_now())
        alloc = doc.get("allocated_bytes")
        if alloc is not None:
            dev_bytes = sum(v for k, v in by_device.items() if not k.startswith("cpu"))
            doc["unattributed_bytes"] = alloc - dev_bytes
        doc["census_ns"] = time.monotonic_ns() - t0
        self.phases.append(doc)

    def _sample_hash(self, t) -> int:
        torch = self.torch
        s = t.untyped_storage()
        n = s.nbytes()
        u8 = _u8(torch, t)
        # Evenly spaced byte offsets in integer arithmetic: a float32 linspace
        # rounds n - 1 up to n once n passes 2**24 (every LM embedding).
        k = min(SAMPLE, n)
        idx = torch.arange(k, dtype=torch.int64, device=t.device) * (n - 1) // max(1, k - 1)
        sample = u8[idx].cpu()
        b = bytes(sample.numpy().tobytes())
        if len(set(b)) <= 1:
            return 0  # constant bytes (zeros, ones-like): equal by construction, not copies
        return int.from_bytes(hashlib.blake2b(b, digest_size=8).digest(), "little")

    def _duplicates(self, storages: dict) -> list[dict]:
        from fastenough import _core

        torch = self.torch
        rows, metas = [], []
        for k, s in storages.items():
            if s["nbytes"] < DUP_MIN_BYTES:
                continue
            h = self._sample_hash(s["t"])
            if h == 0:
                continue
            rows.append((f"{k[0]}:{k[1]:#x}", (s["nbytes"], h)))
            metas.append((k, s))
        out = []
        for group in _core.check_duplicate_candidates(rows, DUP_MIN_BYTES):
            first = metas[group[0]][1]
            base = _u8(torch, first["t"])
            same = [group[0]] + [i for i in group[1:]
                                 if _equal_bytes(torch, base, _u8(torch, metas[i][1]["t"]))]
            if len(same) < 2:
                continue
            entry = {"nbytes": first["nbytes"], "copies": len(same),
                     "tensors": [(metas[i][1]["names"] or [metas[i][1]["group"]])[0]
                                 for i in same],
                     "groups": [metas[i][1]["group"] for i in same],
                     "device": metas[group[0]][0][0]}
            out.append(entry)
            key = tuple(sorted(str(metas[i][0]) for i in same))
            self.duplicates[key] = entry
            self._dup_refs[key] = [weakref.ref(metas[i][1]["t"]) for i in same]
        return out

    def confirm_duplicates(self) -> None:
        """At each census and at the end, keep only the groups still copies.
        Equal content at one census can be transient: nn.TransformerEncoder
        deep-copies one layer into all of them, so before the first optimizer
        step every layer's weights are equal, and training makes them differ.
        A group whose tensors are alive but no longer equal is dropped and listed
        as diverged; one whose copies were freed meanwhile stays (the memory was
        held while they lived)."""
        torch = self.torch
        for key, entry in list(self.duplicates.items()):
            alive = [t for t in (r() for r in self._dup_refs.get(key, [])) if t is not None]
            if len(alive) < 2:
                continue
            with torch.no_grad():
                base = _u8(torch, alive[0])
                still = 1 + sum(1 for t in alive[1:]
                                if _key(t) != _key(alive[0])
                                and _equal_bytes(torch, base, _u8(torch, t)))
            if still >= 2:
                entry["copies"] = still
                continue
            del self.duplicates[key]
            self.diverged.append(dict(entry, reason="diverged"))
        self._dup_refs.clear()


_TRACING_TENSORS = {"FakeTensor", "FunctionalTensor", "FunctionalTensorWrapper", "ProxyTensor"}


def _kind_of(torch, t: type) -> int:
    # The MRO, not issubclass(): issubclass() runs a metaclass's
    # __subclasscheck__, and some of those warn (deprecated module attributes)
    # on the program's stderr. Reading __mro__ runs nothing of the program's.
    try:
        mro = type.__dict__["__mro__"].__get__(t)
    except Exception:  # noqa: BLE001 - not a type
        return 0
    if torch.Tensor in mro:
        # torch.compile's tracing tensors hold no storage of their own: asking
        # for one warns on the program's stderr ("data_ptr() on a FakeTensor").
        if any(c.__name__ in _TRACING_TENSORS for c in mro):
            return 0
        return 1
    if torch.nn.Module in mro:
        return 2
    if torch.optim.Optimizer in mro:
        return 3
    return 0


def _equal_bytes(torch, a, b) -> bool:
    """Byte-equal storages, compared in slices: on a device torch.equal builds an
    elementwise result as large as its inputs, and a census must not allocate
    the size of a weight matrix."""
    n = a.numel()
    if b.numel() != n:
        return False
    return all(torch.equal(a[i:i + COMPARE_SLICE], b[i:i + COMPARE_SLICE])
               for i in range(0, n, COMPARE_SLICE))


def _u8(torch, t):
    return torch.empty(0, dtype=torch.uint8, device=t.device).set_(t.untyped_storage())
