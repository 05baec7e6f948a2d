"""kv-cache-in-scoring and unused-outputs: Hugging Face style outputs
(ModelOutput: a dict with past_key_values / hidden_states / attentions fields)
that the program never passes back in or never reads.

Reads are seen by switching the returned object's class to a subclass of its
own class that notes accesses to the watched fields (isinstance still holds,
and every value is returned unchanged)."""

from __future__ import annotations

from fastenough.agent.checks._util import storage_bytes, tensors_in, user_site

# transformers < 5 names the cache past_key_values; 5.x names it cache.
CACHE_KEYS = ("past_key_values", "cache")
WATCH = CACHE_KEYS + ("hidden_states", "attentions")


class OutputsCheck:
    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.forwards = 0
        self.with_cache = 0
        self.cache_reused = 0
        self.cache_bytes = 0
        self.requested = {"hidden_states": 0, "attentions": 0}
        self.read = {"hidden_states": 0, "attentions": 0, "past_key_values": 0, "cache": 0}
        self.unused_bytes = 0
        self.sites: dict[tuple, dict] = {}  # (file, line) -> cache counts of that call site
        self._producers: dict[int, dict] = {}  # id(cache object) -> the site that built it
        self.where: dict | None = None
        self._classes: dict[type, type] = {}
        self.probe_call = None  # (module, args, kwargs) kept for --probe

    def on_forward(self, module, args, kwargs, output) -> None:
        if not (isinstance(output, dict) and hasattr(type(output), "to_tuple")):
            return
        # Plain dict look-ups: ModelOutput's own __contains__/__getitem__ warn about
        # the old cache names on the program's stderr (transformers 5).
        if not any(dict.__contains__(output, k) for k in WATCH) and not hasattr(output, "logits"):
            return
        self.forwards += 1
        given = next((kwargs.get(k) for k in CACHE_KEYS if kwargs.get(k) is not None), None)
        reused = given is not None
        pkv = next((dict.get(output, k) for k in CACHE_KEYS if dict.get(output, k) is not None),
                   None)
        # Per call site of the user's: a script that scores with model(ids) and
        # also generates has a cache wasted at the first line, whatever the
        # generation does. A cache passed back counts for the site that built
        # it (a hand-written loop: prefill at one line, decoding at another).
        if reused:
            producer = self._producers.get(id(given))
            if producer is not None:
                producer["reused"] += 1
        if pkv is not None:
            site = user_site(2) or {}
            key = (site.get("file"), site.get("line"))
            counts = self.sites.get(key)
            if counts is None:
                counts = self.sites[key] = {"where": site, "with_cache": 0, "reused": 0}
            counts["with_cache"] += 1
            if len(self._producers) > 4096:
                self._producers.clear()
            self._producers[id(pkv)] = counts
        if reused:
            self.cache_reused += 1
        if pkv is not None:
            self.with_cache += 1
            if not self.cache_bytes:
                self.cache_bytes = storage_bytes(tensors_in(pkv, self.torch))
        for k in ("hidden_states", "attentions"):
            v = dict.get(output, k)
            if v is not None:
                self.requested[k] += 1
                if self.forwards <= 2:
                    self.unused_bytes = max(self.unused_bytes,
                                            storage_bytes(tensors_in(v, self.torch)))
        if pkv is not None or any(dict.get(output, k) is not None for k in self.requested):
            if self.where is None:
                self.where = user_site(2)
            if self.probe_call is None and self.reg.probe:
                self.probe_call = (module, args, dict(kwargs))
        try:  # noqa: SIM105
            output.__class__ = self._tracking(type(output))
        except TypeError:
            pass

    def _tracking(self, cls: type) -> type:
        sub = self._classes.get(cls)
        if sub is not None:
            return sub
        read = self.read

        def __getattribute__(self, name):
            if name in read:
                read[name] += 1
            return cls.__getattribute__(self, name)

        def __getitem__(self, k):
            if isinstance(k, str):
                if k in read:
                    read[k] += 1
            else:
                keys = list(self.keys())
                picked = keys[k] if isinstance(k, slice) else [keys[k]]
                for name in picked:
                    if name in read:
                        read[name] += 1
            return cls.__getitem__(self, k)

        def to_tuple(self):
            for name in self.keys():
                if name in read:
                    read[name] += 1
            return cls.to_tuple(self)

        def values(self):
            for name in self.keys():
                if name in read:
                    read[name] += 1
            return cls.values(self)

        def items(self):
            for name in self.keys():
                if name in read:
                    read[name] += 1
            return cls.items(self)

        ns = {"__getattribute__": __getattribute__, "__getitem__": __getitem__,
              "to_tuple": to_tuple, "values": values, "items": items,
              "__module__": cls.__module__, "__qualname__": cls.__qualname__}
        try:
            # ModelOutput registers each subclass as a pytree node; that is harmless.
            sub = type(cls.__name__, (cls,), ns)
        except Exception:  # noqa: BLE001
            sub = cls
        self._classes[cls] = sub
        return sub

    def wasted_cache_sites(self) -> list[dict]:
        """Call sites whose forwards built a cache that no forward of the same
        site passed back, most forwards first."""
        out = [c for c in self.sites.values() if c["with_cache"] > 0 and c["reused"] == 0]
        return sorted(out, key=lambda c: -c["with_cache"])

    def kv_numbers(self) -> dict:
        wasted = self.wasted_cache_sites()
        with_cache = sum(c["with_cache"] for c in wasted)
        return {"forwards": self.forwards, "forwards_with_cache": with_cache,
                "cache_reused": 0 if wasted else self.cache_reused,
                "cache_bytes_per_forward": self.cache_bytes or None}

    def kv_where(self) -> dict | None:
        wasted = self.wasted_cache_sites()
        return wasted[0]["where"] if wasted else self.where

    def unused_numbers(self) -> dict:
        return {"forwards": self.forwards,
                "hidden_states_requested": self.requested["hidden_states"],
                "hidden_states_read": self.read["hidden_states"],
                "attentions_requested": self.requested["attentions"],
                "attentions_read": self.read["attentions"],
                "unused_bytes_per_forward": self.unused_bytes or None}
