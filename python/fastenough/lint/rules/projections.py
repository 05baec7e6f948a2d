"""Separate q/k/v (or gate/up) projections of one input."""

from __future__ import annotations

import ast

from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_ALIASES = {"query": "q", "key": "k", "value": "v", "wq": "q", "wk": "k", "wv": "v",
            "w1": "gate", "w3": "up", "gate": "gate", "up": "up", "q": "q", "k": "k", "v": "v"}
_FAMILIES = ({"q", "k", "v"}, {"gate", "up"})

_EXPLAIN = """\
Two or more projections of the same input (q_proj(x), k_proj(x), v_proj(x), or
gate_proj(x) and up_proj(x)) launch one GEMM each, each reading the input again.
One linear with the weights concatenated (qkv_proj, gate_up_proj) does the same
arithmetic in one larger GEMM; split its output with .split() or .chunk(). When
loading pretrained weights, concatenate them once at load time. Shared with the
trace detector unfused-projections."""


def _role(attr: str) -> str:
    name = attr.lower()
    for suffix in ("_proj", "_projection", "_linear", "_lin", "_layer"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for prefix in ("to_", "w_", "fc_", "linear_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return _ALIASES.get(name, "")


def check(ctx: ModuleContext):
    for fn in ctx.scope.functions:
        by_input: dict[str, list[tuple[ast.Call, str]]] = {}
        for site in fn.calls:
            call = site.node
            f = call.func
            if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == "self" and len(call.args) == 1 and not call.keywords):
                continue
            role = _role(f.attr)
            if role:
                by_input.setdefault(ast.dump(call.args[0]), []).append((call, f.attr))
        for calls in by_input.values():
            roles = {_role(a) for _, a in calls}
            for family in _FAMILIES:
                if len(roles & family) >= 2:
                    first = min((c for c, _ in calls), key=lambda c: (c.lineno, c.col_offset))
                    names = ", ".join(sorted({a for _, a in calls if _role(a) in family}))
                    yield Hit(first, f"separate projections {names} of one input: merge them "
                                     "into one linear and split the output")


RULES = [Rule("unfused-projections", "separate-qkv-or-gate-up",
              "separate q/k/v or gate/up projections of one input", _EXPLAIN, check)]
