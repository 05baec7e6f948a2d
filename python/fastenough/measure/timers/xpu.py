"""The Intel XPU timer: torch.xpu.Event pairs; the dummy job is a few calibrated
bf16 matmuls; the graph window uses torch.xpu.XPUGraph where the installed torch
provides it."""

from __future__ import annotations

from fastenough.measure.timers.events import EventTimer, spin_with_matmuls


class XpuTimer(EventTimer):
    kind = "xpu"
    _GRAPH_CLASS = "XPUGraph"

    def __init__(self, device: str) -> None:
        import torch

        super().__init__(device, torch.xpu)
        self._calibration: dict = {}
        if getattr(torch.xpu, "XPUGraph", None) is None or not hasattr(torch.xpu, "graph"):
            self.graph_unavailable = "this torch has no torch.xpu.XPUGraph"

    def queue_spin(self, seconds: float) -> None:
        spin_with_matmuls(self, seconds, self._calibration)
