"""Data-dependent shapes inside loops: nonzero, unique, one-argument torch.where.

Their output size depends on the values, so the host must wait for the device to
know how much memory to allocate: a hidden sync per call.
"""

from __future__ import annotations

import ast

from fastenough.lint.astutil import dotted
from fastenough.lint.kinds import NOT_A_DEVICE_TENSOR
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_DYNAMIC = {"nonzero", "unique", "unique_consecutive", "argwhere", "masked_select"}

_EXPLAIN = """\
nonzero(), unique(), unique_consecutive(), argwhere(), masked_select() and
one-argument torch.where(cond) return a tensor whose size depends on the data:
the host must wait for the device to finish before it can allocate the result,
so each call is a hidden host sync, and the shapes that follow change from step
to step (torch.compile recompiles, CUDA graphs are impossible). Inside the step
loop, keep shapes static: use masks (torch.where(cond, a, b) with three
arguments, multiplication by a mask, masked_fill), or a fixed upper bound with
padding. The runtime side reports these as sync-in-loop too."""


def check(ctx: ModuleContext):
    scope = ctx.scope
    for site in scope.calls:
        call = site.node
        func = call.func
        name = dotted(func)
        root = name.split(".", 1)[0]
        is_torch = root in scope.torch_aliases
        if isinstance(func, ast.Attribute) and func.attr == "where":
            if not (is_torch and len(call.args) == 1 and not call.keywords):
                continue
            what, receiver = "torch.where(cond)", call.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _DYNAMIC:
            if is_torch:
                if not call.args:
                    continue
                what, receiver = f"torch.{func.attr}()", call.args[0]
            elif root in scope.numpy_aliases:
                continue
            else:
                what, receiver = f".{func.attr}()", func.value
        else:
            continue
        line = scope.loop_line(site)
        if line is None:
            continue
        if scope.env(site.function).kind(receiver) in NOT_A_DEVICE_TENSOR:
            continue
        how = "called from the loop" if scope.via_call(site) else "inside the loop"
        yield Hit(call, f"{what} {how} at line {line} has a data-dependent shape: a hidden "
                        "sync every iteration")


RULES = [Rule("sync-in-loop", "dynamic-shape-in-loop",
              "nonzero/unique/one-argument torch.where inside a loop", _EXPLAIN, check)]
