"""Choosing the timer: the device the inputs live on, unless one is named.

    timer_for(None, args, kwargs)   # inputs on cuda:1 -> CudaTimer("cuda:1")
    timer_for("npu:0", (), {})      # explicit; UsageError when torch_npu is absent
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from fastenough.errors import UsageError
from fastenough.measure.timers.base import DeviceTimer
from fastenough.measure.timers.cpu import CpuTimer

SUPPORTED = ("cpu", "cuda", "npu", "xpu")


def _tensor_devices(obj, out: list, depth: int = 0) -> None:
    """Devices of the tensors in obj (tensors, modules, lists/tuples, mappings), a
    few levels deep."""
    torch = sys.modules.get("torch")
    if torch is None or depth > 3:
        return
    if isinstance(obj, torch.Tensor):
        out.append(str(obj.device))
    elif isinstance(obj, torch.nn.Module):
        for p in obj.parameters():
            out.append(str(p.device))
            break
    elif isinstance(obj, Mapping):
        for v in list(obj.values())[:16]:
            _tensor_devices(v, out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj[:16]:
            _tensor_devices(v, out, depth + 1)


def infer_device(fn, args, kwargs) -> str:
    """The accelerator the inputs live on ('cuda:0', ...), else 'cpu'. CPU tensors next
    to accelerator ones (a scalar, an index) do not count; two accelerators do: that
    is ambiguous and raises."""
    found: list[str] = []
    _tensor_devices(fn, found)
    _tensor_devices(args, found)
    _tensor_devices(kwargs, found)
    accel = sorted({d if ":" in d else d + ":0" for d in found if not d.startswith("cpu")})
    if len(accel) > 1:
        raise UsageError(
            f"the inputs live on several devices ({', '.join(accel)}); pass device=... to "
            "say which one to time")
    return accel[0] if accel else "cpu"


def _available(kind: str) -> str | None:
    """None when the backend is usable, else why not."""
    if kind == "cpu":
        return None
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if kind == "npu" and "torch_npu" not in sys.modules:
        try:
            import torch_npu  # noqa: F401 - registers torch.npu
        except ImportError:
            return "torch_npu is not installed (pip install torch-npu, with the CANN toolkit)"
    mod = getattr(torch, kind, None)
    if mod is None or not mod.is_available():
        return f"torch.{kind}.is_available() is False on this machine"
    return None


def timer_for(device, args=(), kwargs=None, fn=None) -> DeviceTimer:
    """The timer for `device` (a string or torch.device), or for the inputs' device."""
    name = str(device) if device is not None else infer_device(fn, args, kwargs or {})
    kind = name.split(":", 1)[0]
    if kind not in SUPPORTED:
        raise UsageError(
            f"no timer for device {name!r}: fastenough.time supports {', '.join(SUPPORTED)}")
    why = _available(kind)
    if why is not None:
        raise UsageError(f"cannot time on {name}: {why}")
    if kind == "cpu":
        return CpuTimer("cpu")
    if ":" not in name:
        import torch

        name = f"{kind}:{getattr(torch, kind).current_device()}"
    if kind == "cuda":
        from fastenough.measure.timers.cuda import CudaTimer

        return CudaTimer(name)
    if kind == "npu":
        from fastenough.measure.timers.npu import NpuTimer

        return NpuTimer(name)
    from fastenough.measure.timers.xpu import XpuTimer

    return XpuTimer(name)
