"""Sync watch: during the steady window only, count host-sync calls by the
user's call site (.item(), float(tensor), int(tensor), .cpu() of a device
tensor, .tolist(), .numpy(), bool(tensor), nonzero, unique, one-argument
torch.where, torch.cuda.synchronize, empty_cache, printing a tensor; on CUDA
also torch.cuda.set_sync_debug_mode warnings). The wrappers are removed when the
window ends; the time spent in their bookkeeping is measured and reported as
their overhead.

Calls count per steady step: a call belongs to the first step of its mode that
ends after it (a loss read after optimizer.step() belongs to the next step,
even when an evaluation stretch ran in between), so one that no later step of
its mode follows (a one-off decode after the loop, made while the last step
was still open) counts in no step and is left out, as is a site seen in only
one of many watched steps, or in at most one of 16 (a loss logged every 20th
step). On the CPU no device is waited for: a conversion's
cost is its own host time (call_ns), and a data-dependent op (nonzero,
unique, one-argument where) on a CPU tensor costs its own work, which
reading the result later would not save (priced_ns 0)."""

from __future__ import annotations

import os
import time
import warnings

from fastenough.agent.checks._util import call_site

_TENSOR_METHODS = {"item": ".item()", "tolist": ".tolist()", "numpy": ".numpy()",
                   "cpu": ".cpu()", "__bool__": "bool(tensor)", "nonzero": ".nonzero()",
                   "unique": ".unique()", "__repr__": "print(tensor)",
                   "__float__": "float(tensor)", "__int__": "int(tensor)"}
_TORCH_FUNCS = {"nonzero": "torch.nonzero", "unique": "torch.unique", "where": "torch.where"}
# Ops whose output shape depends on the data: on the CPU their time is their own
# work, not a wait.
_DATA_DEPENDENT = {".nonzero()", ".unique()", "torch.nonzero", "torch.unique", "torch.where"}
# A site seen in one watched step of at least this many is a one-off, not a
# per-step read.
ONE_OFF_MIN_STEPS = 8
# A site seen in at most one of this many watched steps is an occasional read
# (a loss logged every 20th step: 2 of 32 watched steps in one run of
# functorch's Lennard-Jones fit, 1 in the others), not a per-step sync; one
# every 10th step (makemore's loss.item(): 3 or 4 of 32) is.
OCCASIONAL_EVERY = 16
UNKNOWN_MODE = object()  # note_step() of steps whose mode is not given


class SyncWatch:
    def __init__(self, reg) -> None:
        self.reg = reg
        self.torch = reg.torch
        self.sites: dict[tuple, dict] = {}  # (file, line, label, inside, mode) -> site
        self.overhead_ns = 0
        self.calls = 0  # counted in a watched steady step
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
        # Watched steady steps per mode, over all of the mode's windows (a loop
        # that alternates training and evaluation opens one window per epoch).
        self.steps_by_mode: dict = {}
        self._mode = None
        # Calls not yet in a step, per mode: (monotonic ns, site key, ns, priced ns,
        # on device). A later step of the mode that ends after them takes them.
        self._pending: dict = {}
        # Whether a mode's step cycles are watched from their start: a window
        # that opens at a mode switch (training resumes after an evaluation)
        # begins mid-cycle, the reads after the last unwatched step of its mode
        # unseen; its first step end then only starts the count.
        self._aligned: dict = {}
        self._last_step_mode = None
        self._skip_first = False
        self.calls_partial = 0  # in a first, partly watched step: not counted

    @property
    def active(self) -> bool:
        return bool(self._taps)

    @property
    def sample_done(self) -> bool:
        return {"train", "eval"} <= self.sampled_modes

    def on_steady_step(self, end_ns: int | None = None) -> None:
        """Count one watched steady step, which ended at end_ns (monotonic; now
        when not given): the calls of its mode made before then are its calls.
        End the watch once the mode's sample is complete."""
        if not self.active:
            return
        mode = self._mode
        end_ns = time.monotonic_ns() if end_ns is None else end_ns
        self._aligned[mode] = True
        if self._skip_first:
            self._skip_first = False
            pending = self._pending.get(mode) or []
            self._pending[mode] = [c for c in pending if c[0] > end_ns]
            self.calls_partial += len(pending) - len(self._pending[mode])
            return
        self._commit(mode, end_ns)
        self.steps += 1
        n = self.steps_by_mode[mode] = self.steps_by_mode.get(mode, 0) + 1
        if n >= self.sample_steps:
            self.sampled_modes.add(mode)
            self.end()

    def note_step(self, mode) -> None:
        """Any step's end, watched or not: an unwatched step of a mode breaks
        its cycle (the reads after it are not seen)."""
        self._last_step_mode = mode
        if mode is UNKNOWN_MODE:
            self._aligned.clear()  # replayed steps, mode not given: of any mode
        elif not self.active:
            self._aligned[mode] = False

    def _commit(self, mode, end_ns: int) -> None:
        pending = self._pending.get(mode)
        if not pending:
            return
        keep = []
        seen = set()
        for call in pending:
            t, key, ns, priced, on_device = call
            if t > end_ns:
                keep.append(call)  # after this step's end: the next step's
                continue
            s = self.sites[key]
            s["calls"] += 1
            s["call_ns"] += ns
            s["priced_ns"] += priced
            if on_device:
                s["on_device"] += 1
            if key not in seen:
                seen.add(key)
                s["steps_seen"] += 1
            self.calls += 1
        self._pending[mode] = keep

    # ------------------------------------------------------------------ install
    def begin(self, mode: str | None = None) -> None:
        if self._taps or mode in self.sampled_modes:
            return
        self._mode = mode
        # Aligned: the window opens right after a step of its mode (or before
        # any step), or the mode's previous window left off at its last step.
        self._skip_first = not (self._last_step_mode in (None, mode)
                                or self._aligned.get(mode, False))
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
        t = time.monotonic_ns()
        site, inside = call_site()
        mode = self._mode
        key = (site["file"], site["line"], label, inside, mode) if site \
            else (None, 0, label, inside, mode)
        if key not in self.sites:
            # No user frame on the stack (a sync in a library's thread): no place
            # to name, and none is invented.
            self.sites[key] = {"kind": label, "where": site, "calls": 0, "call_ns": 0,
                               "priced_ns": 0, "on_device": 0, "steps_seen": 0,
                               "inside": inside, "mode": mode,
                               "caused_by": f"{os.path.basename(site['file'])}:"
                                            f"{site['line']}" if inside and site else None}
        # On the CPU the host waits for nothing: a conversion costs its own time,
        # a data-dependent op's time is its own work, not saved by reading later.
        priced = ns if on_device or label not in _DATA_DEPENDENT else 0
        self._pending.setdefault(mode, []).append((t, key, ns, priced, on_device))

    def _on_warning(self, message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if "synchroniz" in text.lower():
            self._count("cuda sync (sync debug mode)", True, 0)
            return None
        return self._showwarning(message, category, filename, lineno, file, line)

    # ------------------------------------------------------------------ results
    def _one_off(self, s: dict) -> bool:
        """Seen once in many watched steps, or in at most one of OCCASIONAL_EVERY."""
        watched = self.steps_by_mode.get(s["mode"], 0)
        return watched >= ONE_OFF_MIN_STEPS and \
            (s["steps_seen"] == 1 or s["steps_seen"] * OCCASIONAL_EVERY <= watched)

    def loop_sites(self) -> list[dict]:
        """The sites read in the steady loop: counted in a step, and in more than
        one when the mode had many watched steps."""
        return [s for s in self.sites.values() if s["calls"] and not self._one_off(s)]

    def doc(self) -> dict:
        sites = sorted((s for s in self.sites.values() if s["calls"]), key=lambda s: -s["calls"])
        for s in sites:
            steps = self.steps_by_mode.get(s["mode"], 0)
            s["calls_per_step"] = s["calls"] / steps if steps else None
            s["one_off"] = self._one_off(s)
        outside = sum(len(p) for p in self._pending.values())
        return {"steady_windows": self.windows, "steady_steps": self.steps,
                "steps_by_mode": {str(k): v for k, v in self.steps_by_mode.items()},
                "window_ns": self.window_ns, "calls": self.calls,
                "calls_outside_steps": outside,
                "calls_in_partial_steps": self.calls_partial,
                "outside_note": "calls that no later watched step of their mode followed "
                                "(after the loop, or after the window): in no step, "
                                "not counted; sites with one_off were seen in one step "
                                "of many, or in at most one of 16, and make no finding",
                "overhead_ns": self.overhead_ns,
                "overhead_ns_per_call": self.overhead_ns / (self.calls + outside)
                if self.calls + outside else None,
                "overhead_share_of_window": self.overhead_ns / self.window_ns
                if self.window_ns else None,
                "overhead_note": "bookkeeping time measured inside the wrappers (call-site "
                                 "lookup and counting); excludes the extra Python call",
                "sites": sites}
