"""The CPU timer: perf_counter_ns around the calls (CPU work is synchronous).

No dummy or graph window: there is no device queue to fill ahead of the calls,
so the plain window already contains no queue gaps."""

from __future__ import annotations

import ctypes
import os
import platform
import time

from fastenough.measure.timers.base import DeviceTimer

_NO_QUEUE = (
    "on the cpu, calls run synchronously: there is no device queue for a dummy job to "
    "fill, so the plain window already has no queue gaps"
)
# A last-level cache size when sysfs does not say (a common server L3 slice).
_DEFAULT_LLC = 32 << 20


class _HostBuffer:
    """zero_() overwrites the whole buffer with memset (no allocation per flush)."""

    def __init__(self, nbytes: int) -> None:
        self._buf = bytearray(nbytes)
        self._view = (ctypes.c_char * nbytes).from_buffer(self._buf)
        self.nbytes = nbytes

    def zero_(self) -> None:
        ctypes.memset(self._view, 0, self.nbytes)


def _sysfs_cache_sizes(root: str = "/sys/devices/system/cpu/cpu0/cache") -> list[int]:
    sizes = []
    try:
        entries = os.listdir(root)
    except OSError:
        return sizes
    for entry in entries:
        try:
            with open(os.path.join(root, entry, "size")) as f:
                text = f.read().strip()  # e.g. "32K", "1024K", "36864K"
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        digits = text[:-1] if text[-1:] in "KMG" else text
        if digits.isdigit():
            sizes.append(int(digits) * scale)
    return sizes


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


class CpuTimer(DeviceTimer):
    kind = "cpu"
    dummy_unavailable = _NO_QUEUE
    graph_unavailable = (
        "graph replay needs a CUDA (or NPU) device graph; on the cpu there is no launch "
        "overhead for a graph to remove"
    )

    @property
    def name(self) -> str:
        return _cpu_model()

    def synchronize(self) -> None:
        return None

    def mark(self) -> int:
        return time.perf_counter_ns()

    def seconds_between(self, start: int, end: int) -> float:
        return (end - start) / 1e9

    def cache_bytes(self) -> tuple[int, str]:
        sizes = _sysfs_cache_sizes()
        if sizes:
            return max(sizes), "last-level cache size from sysfs"
        return _DEFAULT_LLC, "default (sysfs did not report cache sizes)"

    def flush_buffer(self, nbytes: int) -> _HostBuffer:
        return _HostBuffer(nbytes)
