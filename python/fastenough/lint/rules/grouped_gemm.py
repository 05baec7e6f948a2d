"""Python loops over experts / heads / segments that run one small matmul each."""

from __future__ import annotations

import ast
import re

from fastenough.lint.astutil import COMPREHENSION_NODES, dotted, last_name
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

# self.experts, heads, segments, num_experts, n_heads, self.num_local_experts
_GROUP = re.compile(r"(^|_)(experts?|heads?|segments?)$", re.IGNORECASE)
# The loop variable names the group: `for expert_idx in expert_hit` (Mixtral).
_GROUP_VAR = re.compile(r"(^|_)(experts?|heads?|segments?)(_?(idx|id|index|i|num))?$",
                        re.IGNORECASE)
_MATMULS = {"matmul", "mm", "bmm", "einsum", "linear", "addmm", "baddbmm"}

_EXPLAIN = """\
A Python loop over experts, heads or segments whose body calls a module or a
matmul launches one small GEMM per iteration: the device runs many short
kernels back to back, each too small to fill it, with launch overhead between
them. Stack the weights once and run one batched matmul (torch.bmm / einsum on
[E, D, F] weights), or sort tokens by expert and use a grouped GEMM
(torch._grouped_mm, or a MoE kernel library). Check on the device that one
kernel really runs, and that outputs agree within a tolerance fixed in advance.
Shared with the trace detector serial-small-gemm, which sees the repeated
shapes."""


def _group_name(it: ast.AST) -> str:
    """The experts/heads/segments collection a loop iterates, or ''."""
    if isinstance(it, ast.Call):
        name = dotted(it.func)
        if name in ("enumerate", "zip", "range", "len", "list", "reversed") and it.args:
            return _group_name(it.args[-1] if name == "range" else it.args[0])
        if isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "values", "children"):
            return _group_name(it.func.value)
        return ""
    name = last_name(it)
    if _GROUP.search(name):
        return name
    return ""


def _targets(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _runs_gemm(body: list[ast.AST], loop_vars: set[str]) -> bool:
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
                return True
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            if isinstance(f, ast.Name) and f.id in loop_vars:
                return True  # expert(x)
            if isinstance(f, ast.Subscript) and _GROUP.search(last_name(f.value)):
                return True  # self.experts[i](x)
            if isinstance(f, ast.Attribute) and f.attr in _MATMULS:
                return True
    return False


def check(ctx: ModuleContext):
    for site in ctx.scope.fors + ctx.scope.comprehensions:
        node = site.node
        if isinstance(node, (ast.For, ast.AsyncFor)):
            group = _group_name(node.iter) or next(
                (n for n in sorted(_targets(node.target)) if _GROUP_VAR.search(n)), "")
            if group and _runs_gemm(node.body, _targets(node.target)):
                yield Hit(node, f"a Python loop over {group} runs one small matmul per "
                                "iteration: a grouped/batched GEMM candidate")
        elif isinstance(node, COMPREHENSION_NODES):
            gen = node.generators[0]
            group = _group_name(gen.iter)
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            if group and _runs_gemm(parts, _targets(gen.target)):
                yield Hit(node, f"a comprehension over {group} runs one small matmul per item: "
                                "a grouped/batched GEMM candidate")


RULES = [Rule("serial-small-gemm", "loop-over-experts",
              "a loop over experts/heads/segments calling a module or matmul", _EXPLAIN,
              check)]
