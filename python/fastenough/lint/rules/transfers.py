"""Host-to-device transfers: blocking copies in loops, DataLoaders that cannot feed a device."""

from __future__ import annotations

import ast
import re

from fastenough.lint.astutil import dotted, has_star_kwargs, is_const, kwarg, last_name
from fastenough.lint.kinds import HOST, NUMPY
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_DEVICE_NAME = re.compile(r"device|(^|_)dev$|gpu|cuda|npu|rank", re.IGNORECASE)
_DEVICE_STR = ("cuda", "npu", "xpu", "mps")
_DTYPE_LEAVES = {"float", "float16", "float32", "float64", "half", "bfloat16", "double",
                 "long", "int", "int8", "int16", "int32", "int64", "uint8", "bool",
                 "complex64", "float8_e4m3fn", "float8_e5m2"}


def _is_device(arg: ast.AST) -> bool:
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value.startswith(_DEVICE_STR)
    if isinstance(arg, ast.Call):
        return dotted(arg.func).endswith("device")
    name = dotted(arg)
    if name.rsplit(".", 1)[-1] in _DTYPE_LEAVES or "dtype" in name:
        return False
    return bool(_DEVICE_NAME.search(last_name(arg)))


_EXPLAIN_TO = """\
.to(device) / .cuda() inside the loop without non_blocking=True copies a host
tensor to the device synchronously: the host waits for the copy, and the copy
cannot overlap the previous step's compute. For data that changes every step
(the batch), allocate it in pinned memory (DataLoader(pin_memory=True) or
.pin_memory()) and copy with .to(device, non_blocking=True), or prefetch the
next batch on a side stream. For data that does not change, move it once before
the loop. The runtime side reports per-step copies as transfer-in-loop."""

_EXPLAIN_PIN = """\
A DataLoader feeding a device without pin_memory=True hands out batches in
pageable host memory: each copy to the device goes through a staging buffer and
cannot run asynchronously. Pass pin_memory=True and copy with
.to(device, non_blocking=True). The runtime side sees these copies as
pageable-memcpy in the trace."""

_EXPLAIN_WORKERS = """\
A DataLoader without num_workers (or with num_workers=0) loads and collates
every batch in the main process, between steps, while the device waits. Give it
worker processes (num_workers>0, persistent_workers=True, prefetch_factor) or
cache the preprocessing offline. The runtime side reports the waiting as
dataloader-bound when it is measured."""


def check_to_device(ctx: ModuleContext):
    scope = ctx.scope
    for site in scope.calls:
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr == "to":
            target = call.args[0] if call.args else kwarg(call, "device")
            if target is None or not _is_device(target):
                continue
        elif func.attr in ("cuda", "npu", "xpu"):
            if dotted(func.value) in scope.torch_aliases:
                continue  # torch.cuda itself
        else:
            continue
        if is_const(kwarg(call, "non_blocking"), True) or has_star_kwargs(call):
            continue
        if len(call.args) > 1 and is_const(call.args[1], True):
            continue  # .to(device, True): non_blocking positionally
        line = scope.loop_line(site)
        if line is None:
            continue
        if scope.env(site.function).kind(func.value) in (HOST, NUMPY):
            continue
        how = "called from the loop" if scope.via_call(site) else "inside the loop"
        what = f".to({ast.unparse(target)})" if func.attr == "to" else f".{func.attr}()"
        yield Hit(call, f"{what} {how} at line {line} without non_blocking=True: a "
                        "blocking host-to-device copy every iteration")


def _dataloaders(ctx: ModuleContext):
    if not ctx.uses_device:
        return
    for site in ctx.scope.calls:
        call = site.node
        if last_name(call.func) == "DataLoader" and not has_star_kwargs(call):
            yield call


def check_pin_memory(ctx: ModuleContext):
    for call in _dataloaders(ctx):
        pin = kwarg(call, "pin_memory")
        if pin is None or is_const(pin, False):
            yield Hit(call, "DataLoader without pin_memory=True in a file that uses a device: "
                            "batches are copied from pageable memory")


def check_num_workers(ctx: ModuleContext):
    for call in _dataloaders(ctx):
        workers = kwarg(call, "num_workers")
        if workers is None or (isinstance(workers, ast.Constant) and workers.value == 0):
            yield Hit(call, "DataLoader without num_workers: batches are loaded in the main "
                            "process between steps")


RULES = [
    Rule("transfer-in-loop", "to-device-in-loop",
         ".to(device)/.cuda() inside a loop without non_blocking=True", _EXPLAIN_TO,
         check_to_device),
    Rule("pageable-memcpy", "dataloader-no-pin-memory",
         "DataLoader without pin_memory=True when a device is used", _EXPLAIN_PIN,
         check_pin_memory),
    Rule("dataloader-bound", "dataloader-no-workers",
         "DataLoader without num_workers when a device is used", _EXPLAIN_WORKERS,
         check_num_workers),
]
