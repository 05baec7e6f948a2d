"""The one small interface every device timer implements.

A timer marks points in the device's execution order and reads the time between
two of them after a synchronisation: on an accelerator these are events recorded
on the current stream (device time, not host submission time); on the CPU they
are perf_counter_ns readings, because CPU calls run synchronously.

The dummy and graph windows need a device queue; a timer that cannot provide one
says why in `dummy_unavailable` / `graph_unavailable` (None when available), so
callers raise or report that reason instead of timing something else.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def is_out_of_memory(exc: BaseException) -> bool:
    """The CPU's MemoryError, torch's OutOfMemoryError (CUDA, XPU), and the
    RuntimeError("... out of memory ...") that torch_npu and older torch raise."""
    if isinstance(exc, MemoryError):
        return True
    torch = sys.modules.get("torch")
    oom = getattr(torch, "OutOfMemoryError", None) if torch is not None else None
    if oom is not None and isinstance(exc, oom):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


class DeviceTimer:
    kind = "cpu"  # cpu | cuda | npu | xpu
    # Why the window is missing on this device; None when the window exists.
    dummy_unavailable: str | None = None
    graph_unavailable: str | None = None

    def __init__(self, device: str) -> None:
        self.device = device  # e.g. "cpu", "cuda:0"

    @property
    def name(self) -> str:
        """The physical device, as the driver names it (e.g. 'NVIDIA H200')."""
        raise NotImplementedError

    def synchronize(self) -> None:
        """Wait until every job queued so far on the device has finished."""
        raise NotImplementedError

    def mark(self):
        """A point in the device's execution order (an event, or a clock reading)."""
        raise NotImplementedError

    def seconds_between(self, start, end) -> float:
        """Device time between two marks; call after synchronize()."""
        raise NotImplementedError

    def queue_spin(self, seconds: float) -> None:
        """Queue one long device job of about `seconds` on the current stream."""
        raise NotImplementedError(self.dummy_unavailable)

    def capture(self, call: Callable[[], object], n: int) -> Callable[[], None]:
        """Capture `n` calls into a device graph; returns its replay function."""
        raise NotImplementedError(self.graph_unavailable)

    def cache_bytes(self) -> tuple[int, str]:
        """(bytes to overwrite to flush the cache flush_l2 targets, where that size came from)."""
        raise NotImplementedError

    def flush_buffer(self, nbytes: int):
        """An object whose zero_() overwrites `nbytes` of device memory."""
        raise NotImplementedError

    # Memory, for sweep_batch: peaks of the caching allocator where there is one.
    def reset_peak_memory(self) -> None:
        return None

    def peak_memory_bytes(self) -> int | None:
        return None

    def release_cached_memory(self) -> None:
        return None

    def is_out_of_memory(self, exc: BaseException) -> bool:
        return is_out_of_memory(exc)
