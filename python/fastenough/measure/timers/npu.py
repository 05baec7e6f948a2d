"""The Ascend NPU timer (torch_npu): torch.npu.Event pairs; the dummy job is a
few calibrated bf16 matmuls (torch_npu has no sleep kernel); the graph window
uses torch.npu.NPUGraph where the installed torch_npu provides it."""

from __future__ import annotations

from fastenough.measure.timers.events import EventTimer, spin_with_matmuls


class NpuTimer(EventTimer):
    kind = "npu"
    _GRAPH_CLASS = "NPUGraph"

    def __init__(self, device: str) -> None:
        import torch

        super().__init__(device, torch.npu)
        self._calibration: dict = {}
        if getattr(torch.npu, "NPUGraph", None) is None or not hasattr(torch.npu, "graph"):
            self.graph_unavailable = "this torch_npu has no torch.npu.NPUGraph"

    def queue_spin(self, seconds: float) -> None:
        spin_with_matmuls(self, seconds, self._calibration)
