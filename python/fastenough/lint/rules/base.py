"""The shape of a rule and the context it runs in."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from fastenough.lint.astutil import dotted
from fastenough.lint.scope import ModuleScope


@dataclass(frozen=True)
class Hit:
    node: ast.AST
    message: str


@dataclass(frozen=True)
class Rule:
    code: str  # the finding code; several rules may share one
    name: str  # this rule, unique: "item-in-loop"
    summary: str  # one line for --explain listings and SARIF shortDescription
    explain: str  # the why and the fix, for `fastenough lint --explain CODE`
    check: Callable[[ModuleContext], Iterable[Hit]]


@dataclass(frozen=True)
class Code:
    """A finding code as lint knows it: title and whether runtime findings share it."""

    code: str
    title: str
    runtime: bool  # `fastenough run` reports the same code from measurements


# Names of callees that are, by the habits of research code, a model forward:
# model(x), self.model(x), net(x), teacher_model(x), self.encoder(x), lm(x).
MODEL_NAME = re.compile(
    r"(^|_)(model|net|network|encoder|decoder|backbone|classifier|lm|transformer|policy)$",
    re.IGNORECASE)


class ModuleContext:
    def __init__(self, path: str, text: str, tree: ast.Module) -> None:
        self.path = path
        self.text = text
        self.tree = tree
        self.scope = ModuleScope(tree)

    @cached_property
    def uses_device(self) -> bool:
        """The file visibly puts work on an accelerator (cuda/npu/xpu/mps, .to(device))."""
        t = self.text
        return any(s in t for s in ("cuda", ".to(device", "npu", "xpu", "torch.device(",
                                    ".to(self.device", "mps"))

    @cached_property
    def eval_called_names(self) -> set[str]:
        """Receivers of `.eval()` / `.train(False)` anywhere in the file."""
        out = set()
        for site in self.scope.calls:
            f = site.node.func
            if isinstance(f, ast.Attribute) and (
                    f.attr == "eval" and not site.node.args
                    or f.attr == "train" and site.node.args
                    and isinstance(site.node.args[0], ast.Constant)
                    and site.node.args[0].value is False):
                out.add(dotted(f.value).rsplit(".", 1)[-1] or "?")
        return out

    def is_model_call(self, call: ast.Call) -> bool:
        """model(x), net(x), self.model(x), trainer.encoder(x), model.forward(x); not
        torch.nn.parallel.DistributedDataParallel._set_params_for_model(...)."""
        func = call.func
        if isinstance(func, ast.Name):
            name = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Name,
                                                                         ast.Attribute)):
            if func.attr == "forward":
                return True
            if isinstance(func.value, ast.Attribute) and not (
                    isinstance(func.value.value, ast.Name) and func.value.value.id == "self"):
                return False  # a.b.c_model(...): a module path, not an instance
            name = func.attr
        else:
            return False
        if name.startswith("_") or name[:1].isupper():
            return False  # private helpers; Net(): building a model, not running one
        return bool(MODEL_NAME.search(name)) or name in self.eval_called_names
