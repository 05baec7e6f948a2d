"""Attention written by hand: softmax(q @ k.transpose(-2, -1)) @ v."""

from __future__ import annotations

import ast

from fastenough.lint.astutil import names_in
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_EXPLAIN = """\
softmax over q @ k.transpose(-2, -1) (scaled, masked, then multiplied by v) is
attention written by hand: it materialises the [batch, heads, query, key] score
matrix in memory and runs three or more kernels. torch.nn.functional.
scaled_dot_product_attention(q, k, v, attn_mask=..., is_causal=..., scale=...)
computes the same with a fused (flash / memory-efficient) kernel where the
device has one. Outputs differ by rounding only; compare them within a tolerance
fixed in advance. Keep the hand-written form when the scores themselves are
needed (attention maps for analysis)."""

_TRANSPOSES = ("transpose", "permute", "swapaxes")


def _is_transposed(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in ("mT", "T"):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in _TRANSPOSES:
            return True
    return False


def _has_qk(expr: ast.AST, assigns: dict[str, list[ast.AST]], depth: int = 3) -> bool:
    for n in ast.walk(expr):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and _is_transposed(n.right):
            return True
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in ("matmul", "bmm") and len(n.args) >= 2
                and _is_transposed(n.args[-1])):
            return True
    if depth == 0:
        return False
    return any(_has_qk(v, assigns, depth - 1) for name in names_in(expr)
               for v in assigns.get(name, []) if v is not expr)


def check(ctx: ModuleContext):
    for fn in ctx.scope.functions:
        for site in fn.calls:
            call = site.node
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "softmax"):
                continue
            assigns = fn.assignments()
            inputs = [call.func.value] + list(call.args[:1])
            if any(_has_qk(e, assigns) for e in inputs):
                yield Hit(call, "attention written by hand (softmax of q @ k^T): "
                                "F.scaled_dot_product_attention computes it in a fused kernel")


RULES = [Rule("manual-attention", "softmax-of-qk",
              "attention written by hand where scaled_dot_product_attention applies", _EXPLAIN,
              check)]
