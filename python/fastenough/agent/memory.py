"""Device and host memory at phase edges, and the device waits that bound them.

Only a backend the program initialised itself is asked (torch.cuda.is_initialized()):
asking any other would initialise it, which changes what the program does.
"""

from __future__ import annotations

import os


def _backends(torch):
    if torch is None:
        return
    if torch.cuda.is_initialized():
        yield "cuda", torch.cuda
    npu = getattr(torch, "npu", None)
    if npu is not None and getattr(npu, "is_initialized", lambda: False)():
        yield "npu", npu


def sync(torch) -> bool:
    """Wait for every initialised device; True (the edge is then device-bounded)."""
    for _, backend in _backends(torch):
        backend.synchronize()
    return True


_MALLINFO2 = None  # glibc's mallinfo2, once looked up (False: not available)


def heap_in_use_bytes() -> int | None:
    """The bytes malloc has handed out and not had back (glibc's mallinfo2:
    uordblks + hblkhd), else None. Unlike RSS it grows when freed memory the
    allocator kept is used again: torch's profiler filled what an LSTM step had
    freed with its records while RSS stayed flat (profile_window.py)."""
    global _MALLINFO2
    if _MALLINFO2 is None:
        _MALLINFO2 = False
        try:
            import ctypes

            class _Info(ctypes.Structure):
                _fields_ = [(n, ctypes.c_size_t) for n in (
                    "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                    "uordblks", "fordblks", "keepcost")]

            fn = ctypes.CDLL(None).mallinfo2
            fn.restype = _Info
            fn.argtypes = []
            _MALLINFO2 = fn
        except (OSError, AttributeError):
            pass
    info = _mallinfo2()
    return None if info is None else int(info.uordblks + info.hblkhd)


def heap_free_bytes() -> int | None:
    """The bytes malloc holds free for its next requests (glibc's mallinfo2:
    fordblks, the top chunk included), else None: memory the process has
    touched, which new allocations fill before the RSS grows (torch's
    profiler's stop fills what a step's activations left: profile_window.py)."""
    info = _mallinfo2()
    return None if info is None else int(info.fordblks)


def return_free_heap() -> bool:
    """Give the heap's free pages back to the system (glibc's malloc_trim(0));
    False where there is no such call. What the profiler window freed stays
    resident otherwise: the program's later allocations land above it, and the
    run kept the window's records as RSS to its end (word-lm: +126 MiB over
    plain, issue 37, item 7). It frees nothing in use: the program's memory
    and what it computes are untouched."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        return False
    return True


def _mallinfo2():
    if _MALLINFO2 is None:
        heap_in_use_bytes()
    return _MALLINFO2() if _MALLINFO2 else None


def rss_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def peak_rss_bytes() -> int | None:
    """VmHWM of this process in bytes (Linux), else None."""
    return _proc_kib("/proc/self/status", "VmHWM:")


def mem_total_bytes() -> int | None:
    return _proc_kib("/proc/meminfo", "MemTotal:")


def _proc_kib(path: str, field: str) -> int | None:
    """A "<field> <n> kB" line of a /proc file, in bytes."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def allocated_bytes(torch) -> int | None:
    """The allocator's bytes in use on the first initialised device, else None."""
    for _, backend in _backends(torch):
        return int(backend.memory_allocated())
    return None


def snapshot(torch) -> dict:
    """Allocator figures of the first initialised device (None on the CPU) and RSS."""
    mem = {"device": "cpu", "allocated_bytes": None, "reserved_bytes": None,
           "alloc_peak_bytes": None, "reserved_peak_bytes": None, "rss_bytes": rss_bytes()}
    for name, backend in _backends(torch):
        mem["device"] = f"{name}:{backend.current_device()}"
        mem["allocated_bytes"] = int(backend.memory_allocated())
        mem["reserved_bytes"] = int(backend.memory_reserved())
        mem["alloc_peak_bytes"] = int(backend.max_memory_allocated())
        mem["reserved_peak_bytes"] = int(backend.max_memory_reserved())
        break
    return mem


def reset_peaks(torch) -> None:
    for _, backend in _backends(torch):
        backend.reset_peak_memory_stats()


def devices(torch) -> list[dict]:
    out = []
    for name, backend in _backends(torch):
        for i in range(backend.device_count()):
            out.append({"device": f"{name}:{i}", "name": backend.get_device_name(i)})
    if not out:
        import platform

        out.append({"device": "cpu", "name": platform.processor() or platform.machine()})
    return out
