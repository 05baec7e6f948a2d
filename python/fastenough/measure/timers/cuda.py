"""The CUDA timer: torch.cuda.Event pairs; the dummy job is torch.cuda._sleep
(one kernel that spins for a number of GPU clock cycles), calibrated once per
device; the graph window is torch.cuda.CUDAGraph."""

from __future__ import annotations

from fastenough.measure.timers.events import EventTimer


class CudaTimer(EventTimer):
    kind = "cuda"
    _GRAPH_CLASS = "CUDAGraph"

    def __init__(self, device: str) -> None:
        import torch

        super().__init__(device, torch.cuda)
        self._cycles_per_s: float | None = None

    def _calibrate(self) -> float:
        import torch

        cycles = 10_000_000
        torch.cuda._sleep(1000)  # first launch loads the kernel: not timed
        self.synchronize()
        start = self.mark()
        torch.cuda._sleep(cycles)
        end = self.mark()
        self.synchronize()
        return cycles / max(self.seconds_between(start, end), 1e-9)

    def queue_spin(self, seconds: float) -> None:
        import torch

        with torch.cuda.device(self.index):
            if self._cycles_per_s is None:
                self._cycles_per_s = self._calibrate()
            torch.cuda._sleep(max(1, int(seconds * self._cycles_per_s)))
