"""Sync watch: during the steady window only, count host-sync calls by the
user's call site (.item(), .cpu() of a device tensor, .tolist(), .numpy(),
bool(tensor), nonzero, unique, one-argument torch.where, torch.cuda.synchronize,
empty_cache, printing a tensor; on CUDA also torch.cuda.set_sync_debug_mode
warnings). The wrappers are removed when the window ends; the time spent in
their bookkeeping is measured and reported as their overhead."""

from __future__ import annotations

import os
import time
import warnings

from fastenough.agent.checks._util import call_site

_TENSOR_METHODS = {"item": ".item()", "tolist": ".tolist()", "numpy": ".numpy()",
                   "cpu": ".cpu()", "__bool__": "bool(tensor)", "nonzero": ".nonzero()",
                   "unique": ".unique()", "__repr__": "print(tensor)"}
_TORCH_FUNCS = {"nonzero": "torch.nonzero", "unique": "torch.unique", "where": "torch.where"}


class SyncWatch:
    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.sites: dict[tuple, dict] = {}
        self.overhead_ns = 0
        self.calls = 0
        self.window_ns = 0
        self.windows = 0
        self.steps = 0
        self._taps: list = []  # handles of agent/tensor_taps.py
        self._t_begin = 0
        self._showwarning = None
        # The wrappers cost a few µs per watched call; a sample of steady steps
        # finds the call sites, so the watch ends after sample_steps, once per
        # mode: training reaching steady first must not use up the sample that
        # would have seen the evaluation loop's .item() (word_language_model's
        # main.py:159).
        self.sample_steps = int(reg.opts.get("sync_watch_steps", 32))
        self.sampled_modes: set = set()
        self.steps_by_mode: dict = {}  # watched steady steps per mode
        self._mode = None
        self._mode_steps = 0

    @property
    def active(self) -> bool:
        return bool(self._taps)

    @property
    def sample_done(self) -> bool:
        return {"train", "eval"} <= self.sampled_modes

    def on_steady_step(self) -> None:
        """Count one watched steady step; end the watch once the mode's sample is complete."""
        if not self.active:
            return
        self.steps += 1
        self._mode_steps += 1
        self.steps_by_mode[self._mode] = self._mode_steps
        if self._mode_steps >= self.sample_steps:
            self.sampled_modes.add(self._mode)
            self.end()

    # ------------------------------------------------------------------ install
    def begin(self, mode: str | None = None) -> None:
        if self._taps or mode in self.sampled_modes:
            return
        if mode != self._mode:
            self._mode, self._mode_steps = mode, 0
        from fastenough.agent import tensor_taps

        torch = self.torch
        self._t_begin = time.monotonic_ns()
        self.windows += 1
        # Native taps (agent/tensor_taps.py): the program's tracebacks through
        # .item() and friends, and the warnings they raise, show no frame of ours.
        taps = tensor_taps.shared()
        watched = [(torch.Tensor, name, label) for name, label in _TENSOR_METHODS.items()]
        watched += [(torch, name, label) for name, label in _TORCH_FUNCS.items()]
        cuda = torch.cuda
        if cuda.is_initialized():
            watched += [(cuda, name, f"torch.cuda.{name}") for name in ("synchronize",
                                                                         "empty_cache")]
        for owner, name, label in watched:
            tap = taps.add(owner, name, self._listener(label, name))
            if tap is not None:
                self._taps.append(tap)
        if cuda.is_initialized():
            try:
                cuda.set_sync_debug_mode("warn")
                self._showwarning = warnings.showwarning
                warnings.showwarning = self._on_warning
            except Exception:  # noqa: BLE001
                self._showwarning = None

    def end(self) -> None:
        if not self._taps:
            return
        from fastenough.agent import tensor_taps

        taps = tensor_taps.shared()
        for tap in self._taps:
            taps.remove(tap)
        self._taps = []
        error = taps.failed()
        if error is not None:
            self.reg.internal_error(f"sync watch: {error}")
        if self._showwarning is not None:
            warnings.showwarning = self._showwarning
            self._showwarning = None
            try:  # noqa: SIM105
                self.torch.cuda.set_sync_debug_mode(0)
            except Exception:  # noqa: BLE001, S110
                pass
        self.window_ns += time.monotonic_ns() - self._t_begin

    # ------------------------------------------------------------------ listeners
    def _listener(self, label: str, name: str):
        watch = self
        tensor_cls = self.torch.Tensor
        is_cpu_method = name == "cpu"
        is_where = name == "where"

        def after(args, result, ns):
            t1 = time.perf_counter_ns()
            first = args[0] if args else None
            on_device = isinstance(first, tensor_cls) and first.device.type != "cpu"
            if (is_cpu_method and not on_device) or (is_where and len(args) != 1):
                pass  # .cpu() of a CPU tensor, three-argument where: no sync
            else:
                watch._count(label, on_device or label.startswith("torch.cuda"), ns)
            watch.overhead_ns += time.perf_counter_ns() - t1

        return after

    def _count(self, label: str, on_device: bool, ns: int) -> None:
        site, inside = call_site()
        key = (site["file"], site["line"], label, inside) if site else (None, 0, label, inside)
        s = self.sites.get(key)
        if s is None:
            # No user frame on the stack (a sync in a library's thread): no place
            # to name, and none is invented.
            s = self.sites[key] = {"kind": label, "where": site, "calls": 0, "call_ns": 0,
                                   "on_device": 0, "inside": inside, "mode": self._mode,
                                   "caused_by": f"{os.path.basename(site['file'])}:"
                                                f"{site['line']}" if inside and site else None}
        s["calls"] += 1
        s["call_ns"] += ns
        if on_device:
            s["on_device"] += 1
        self.calls += 1

    def _on_warning(self, message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if "synchroniz" in text.lower():
            self._count("cuda sync (sync debug mode)", True, 0)
            return None
        return self._showwarning(message, category, filename, lineno, file, line)

    # ------------------------------------------------------------------ results
    def doc(self) -> dict:
        sites = sorted(self.sites.values(), key=lambda s: -s["calls"])
        steps = self.steps
        for s in sites:
            s["calls_per_step"] = s["calls"] / steps if steps else None
        return {"steady_windows": self.windows, "steady_steps": steps,
                "window_ns": self.window_ns, "calls": self.calls,
                "overhead_ns": self.overhead_ns,
                "overhead_ns_per_call": self.overhead_ns / self.calls if self.calls else None,
                "overhead_share_of_window": self.overhead_ns / self.window_ns
                if self.window_ns else None,
                "overhead_note": "bookkeeping time measured inside the wrappers (call-site "
                                 "lookup and counting); excludes the extra Python call",
                "sites": sites}
