"""Small helpers over Python `ast` nodes shared by the lint rules."""

from __future__ import annotations

import ast

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOP_NODES = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSION_NODES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def dotted(node: ast.AST) -> str:
    """`torch.nn.functional.softmax` for that attribute chain; '' when not a plain chain.

    Calls in the chain keep their callee's name with `()`: `torch.no_grad()`."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            break
        elif isinstance(node, ast.Call):
            inner = dotted(node.func)
            if not inner:
                return ""
            parts.append(inner + "()")
            break
        else:
            return ""
    return ".".join(reversed(parts))


def last_name(node: ast.AST) -> str:
    """The last identifier of a callee or receiver: `experts` for `self.experts`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return last_name(node.func)
    return ""


def method_call(node: ast.AST, *names: str) -> bool:
    """True when node is `<receiver>.<one of names>(...)`."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in names)


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def has_star_kwargs(call: ast.Call) -> bool:
    """`f(**opts)`: keyword arguments we cannot see."""
    return any(k.arg is None for k in call.keywords)


def is_const(node: ast.AST | None, value) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def is_int_const(node: ast.AST | None, value: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and node.operand.value == -value
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def names_in(node: ast.AST) -> set[str]:
    """Every plain name read in an expression."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
