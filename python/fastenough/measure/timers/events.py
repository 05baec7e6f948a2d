"""What the CUDA, NPU and XPU timers share: torch's per-backend module
(torch.cuda, torch.npu, torch.xpu) offers Event(enable_timing=True),
synchronize(), the caching allocator's peak counters and empty_cache()
under the same names, so one class drives all three."""

from __future__ import annotations

import math

from fastenough.measure.timers.base import DeviceTimer

# When the driver does not report the L2 size, overwrite this much: more than the
# L2 of current accelerators (H100 50 MiB, MI300 256 MiB of Infinity Cache,
# Ascend 910B 192 MiB), so the flush is complete, at the cost of a longer zero_().
DEFAULT_CACHE_BYTES = 256 << 20


class EventTimer(DeviceTimer):
    def __init__(self, device: str, module) -> None:
        super().__init__(device)
        self._mod = module  # torch.cuda / torch.npu / torch.xpu
        self.index = int(device.split(":", 1)[1]) if ":" in device else 0

    @property
    def name(self) -> str:
        try:
            return str(self._mod.get_device_name(self.index))
        except Exception:  # noqa: BLE001 - a name is a label, never worth failing for
            return self.device

    def synchronize(self) -> None:
        self._mod.synchronize(self.index)

    def mark(self):
        # On this device's current stream, also when another device is current.
        event = self._mod.Event(enable_timing=True)
        event.record(self._mod.current_stream(self.index))
        return event

    def seconds_between(self, start, end) -> float:
        return start.elapsed_time(end) / 1e3  # elapsed_time is in milliseconds

    def flush_buffer(self, nbytes: int):
        import torch

        return torch.empty(nbytes, dtype=torch.uint8, device=self.device)

    def cache_bytes(self) -> tuple[int, str]:
        try:
            l2 = int(getattr(self._mod.get_device_properties(self.index), "L2_cache_size", 0))
        except Exception:  # noqa: BLE001 - older torch or a backend without properties
            l2 = 0
        if l2 > 0:
            return l2, "L2_cache_size of the device properties"
        return DEFAULT_CACHE_BYTES, "default 256 MiB (the driver did not report the L2 size)"

    def reset_peak_memory(self) -> None:
        self._mod.reset_peak_memory_stats(self.index)

    def peak_memory_bytes(self) -> int | None:
        return int(self._mod.max_memory_allocated(self.index))

    def release_cached_memory(self) -> None:
        self._mod.empty_cache()

    # The graph window, for backends whose module has graph() and a graph class.
    _GRAPH_CLASS = ""

    def capture(self, call, n: int):
        graph_cls = getattr(self._mod, self._GRAPH_CLASS, None)
        mod = self._mod
        # Warm up on a side stream first, as torch's CUDA-graph notes require
        # (libraries allocate workspaces and pick algorithms on first calls).
        side = mod.Stream()
        side.wait_stream(mod.current_stream())
        with mod.stream(side):
            for _ in range(3):
                call()
        mod.current_stream().wait_stream(side)
        graph = graph_cls()
        with mod.graph(graph):
            for _ in range(n):
                call()
        mod.synchronize(self.index)
        return graph.replay


def spin_with_matmuls(timer: EventTimer, seconds: float, calibration: dict) -> None:
    """A long device job for backends without a sleep kernel: square matmuls whose
    size is calibrated once (one 2048^3 bf16 product timed with events), a few
    launches at most, so the host is free again almost at once."""
    import torch

    side = 2048
    if "s_per_matmul" not in calibration:
        a = torch.ones(side, side, dtype=torch.bfloat16, device=timer.device)
        a @ a  # first call: library initialisation, not timed
        timer.synchronize()
        start = timer.mark()
        a @ a
        end = timer.mark()
        timer.synchronize()
        calibration["s_per_matmul"] = max(timer.seconds_between(start, end), 1e-6)
        calibration["operand"] = a
    a = calibration["operand"]
    for _ in range(max(1, math.ceil(seconds / calibration["s_per_matmul"]))):
        a @ a
