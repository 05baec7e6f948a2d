"""log_softmax over the full vocabulary at every position, then a few positions picked."""

from __future__ import annotations

import ast

from fastenough.lint.astutil import dotted, names_in
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_NORMALISERS = {"log_softmax", "softmax"}

_EXPLAIN = """\
log_softmax (or softmax) over the logits of every position, followed by a gather
of the target tokens and a slice down to a few positions (the continuation of a
multiple-choice item, the last token): the LM head and the normalisation ran
over positions x vocabulary, and almost all of it is dropped. Select the
positions first (hidden[:, positions] before the LM head, logits_to_keep in
Hugging Face models, or index the logits before log_softmax), then normalise.
The rule fires when the normalised tensor feeds a gather whose result is then
sliced or indexed by a computed position, and the logits were not visibly
selected before. Shared with the runtime check full-vocab-logits."""


def _is_normaliser(call: ast.AST) -> bool:
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr in _NORMALISERS)


def _selected_before(expr: ast.AST, assigns: dict[str, list[ast.AST]], depth: int = 3) -> bool:
    """The normalised input visibly went through an index/slice (positions selected)."""
    if any(isinstance(n, ast.Subscript) for n in ast.walk(expr)):
        return True
    if depth == 0:
        return False
    return any(_selected_before(v, assigns, depth - 1)
               for name in names_in(expr) for v in assigns.get(name, []))


def _computed_index(sub: ast.Subscript) -> bool:
    """`x[start : start + n]`, `x[idx]`: positions chosen by a computed value."""
    return any(isinstance(n, (ast.Name, ast.Call, ast.Attribute)) for n in ast.walk(sub.slice))


def check(ctx: ModuleContext):
    scope = ctx.scope
    for fn in scope.functions:
        gathers = [s.node for s in fn.calls
                   if isinstance(s.node.func, ast.Attribute) and s.node.func.attr == "gather"]
        if not gathers:
            continue
        assigns = fn.assignments()
        # name -> the normaliser call it holds
        normalised = {name: v for name, vs in assigns.items() for v in vs
                      if _is_normaliser(v)}
        for call in gathers:
            source = call.func.value
            if dotted(call.func).split(".", 1)[0] in scope.torch_aliases and call.args:
                source = call.args[0]  # torch.gather(logp, dim, index)
            while isinstance(source, ast.Subscript):
                source = source.value
            norm = source if _is_normaliser(source) else (
                normalised.get(source.id) if isinstance(source, ast.Name) else None)
            if norm is None:
                continue
            arg = norm.args[0] if norm.args and dotted(norm.func).split(".", 1)[0] in (
                scope.torch_aliases | {"F", "nn"}) else norm.func.value
            if _selected_before(arg, assigns):
                continue
            gathered = {name for name, vs in assigns.items()
                        for v in vs if any(n is call for n in ast.walk(v))}
            picked_later = any(
                isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                and n.value.id in gathered and _computed_index(n)
                for n in ast.walk(fn.node))
            if picked_later:
                yield Hit(norm, f"{norm.func.attr} over the full logits, then gather and a "
                                "slice to a few positions: select the positions first")
                break


RULES = [Rule("full-vocab-logits", "log-softmax-then-gather",
              "log_softmax over all positions, then a few positions gathered", _EXPLAIN, check)]
