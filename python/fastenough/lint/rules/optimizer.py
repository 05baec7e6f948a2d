"""Optimizers built without a multi-tensor (foreach) or fused implementation."""

from __future__ import annotations

from fastenough.lint.astutil import dotted, has_star_kwargs, kwarg
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_OPTIMIZERS = {"Adam", "AdamW", "SGD", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
               "RMSprop", "Rprop", "ASGD"}
_FUSED = {"Adam", "AdamW", "SGD", "Adagrad"}

_EXPLAIN = """\
A torch.optim optimizer built without fused= or foreach= in a file that uses a
device. The plain per-parameter implementation launches several small kernels
per parameter tensor at every step; foreach=True groups them across parameters
and fused=True (Adam, AdamW, SGD, Adagrad on CUDA and other supported devices)
does the whole update in a few kernels. Recent PyTorch picks foreach by itself
on CUDA when every parameter is there, but not fused, and not on every device:
state the choice. Compare a few steps' losses before and after: fused and
foreach change the order of floating-point operations slightly."""


def check(ctx: ModuleContext):
    if not ctx.uses_device:
        return
    for site in ctx.scope.calls:
        call = site.node
        name = dotted(call.func)
        leaf = name.rsplit(".", 1)[-1]
        if leaf not in _OPTIMIZERS:
            continue
        if "optim" not in name and "torch.optim" not in ctx.text:
            continue
        if kwarg(call, "fused") is not None or kwarg(call, "foreach") is not None:
            continue
        if has_star_kwargs(call):
            continue
        fix = "fused=True" if leaf in _FUSED else "foreach=True"
        yield Hit(call, f"{leaf} without fused=/foreach=: pass {fix} for fewer, larger "
                        "update kernels")


RULES = [Rule("optimizer-not-fused", "optimizer-without-foreach-or-fused",
              "a torch.optim optimizer without foreach=/fused= on a device", _EXPLAIN, check)]
