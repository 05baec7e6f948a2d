"""`.contiguous()` right after `.transpose()` / `.permute()` inside forward."""

from __future__ import annotations

import ast

from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_EXPLAIN = """\
x.transpose(...).contiguous() (or .permute(...).contiguous(), .t().contiguous())
inside forward copies the whole tensor into a new layout at every call. Often
the copy is avoidable: let the next op take the strided view (matmul, reshape
where it can, scaled_dot_product_attention accept non-contiguous inputs), keep
the layout the consumer wants from the start (store weights pre-transposed once
at load time, channels-last for convolutions), or fuse the chain with
torch.compile. Keep it where a kernel really needs contiguous memory, and
measure: the copy is cheap next to a large GEMM, expensive in a chain of small
ops."""


def check(ctx: ModuleContext):
    for fn in ctx.scope.functions:
        if fn.name != "forward":
            continue
        for site in fn.calls:
            call = site.node
            f = call.func
            if not (isinstance(f, ast.Attribute) and f.attr == "contiguous"):
                continue
            inner = f.value
            if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr in ("transpose", "permute", "t", "swapaxes", "movedim")):
                yield Hit(call, f".{inner.func.attr}(...).contiguous() in forward copies the "
                                "tensor into a new layout at every call")


RULES = [Rule("transpose-contiguous", "contiguous-after-transpose",
              ".contiguous() right after .transpose()/.permute() in forward", _EXPLAIN, check)]
