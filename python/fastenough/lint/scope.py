"""The scope and loop tracker: for each call and test in a module, where it runs.

One pass over the tree records every call (`Site`) with the function it is in,
the innermost loop around it in that function (for/while bodies, while tests,
comprehensions) and whether a `with torch.no_grad()/inference_mode()` encloses
it. After the pass, two facts flow along the calls between functions of the
same file:

- epoch loops (`for epoch in range(epochs)`) do not count: they run a handful
  of times; the step loop inside them is the hot one.
- loop reach: a function called from a loop body runs once per iteration, so
  its code counts as "in the loop" too (`for b in loader: step(b)` makes the
  `.item()` inside `step` a per-step sync). Calls resolve by name: `f(...)` to
  the module's functions named f, `self.f(...)` / `cls.f(...)` to the method f
  of the enclosing class. Nothing is imported; other files are not followed.
- grad off: a function whose every call site in the file runs under no_grad or
  inference_mode (lexically, or because its caller is covered) is covered too,
  as is a function decorated with @torch.no_grad() / @torch.inference_mode().
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from fastenough.lint.astutil import dotted, is_const
from fastenough.lint.kinds import KindEnv, build_env

_GRAD_OFF = {"no_grad", "inference_mode"}


def grad_off_context(expr: ast.AST) -> bool | None:
    """True for `torch.no_grad()` / `inference_mode()` / `set_grad_enabled(False)`,
    False for `enable_grad()`, None for any other context manager."""
    if not isinstance(expr, ast.Call):
        leaf = dotted(expr).rsplit(".", 1)[-1]
        return True if leaf in _GRAD_OFF else None  # `@torch.no_grad` without parentheses
    leaf = dotted(expr.func).rsplit(".", 1)[-1]
    if leaf in _GRAD_OFF:
        mode = expr.args[0] if expr.args else None
        for k in expr.keywords:
            if k.arg == "mode":
                mode = k.value
        return not is_const(mode, False)
    if leaf == "set_grad_enabled" and expr.args:
        return True if is_const(expr.args[0], False) else None
    if leaf == "enable_grad":
        return False
    return None


def is_epoch_loop(node: ast.For | ast.AsyncFor) -> bool:
    """`for epoch in range(epochs)`: once per epoch is not the hot loop.

    A sync or a validation pass per epoch costs nothing worth reporting; the
    step loop inside it is what runs thousands of times."""
    names = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
    names += [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node.iter)
              if isinstance(n, (ast.Name, ast.Attribute))]
    return any("epoch" in n.lower() for n in names)


@dataclass(eq=False)
class Function:
    node: ast.AST
    name: str
    class_name: str | None
    parent: Function | None
    grad_off_decorated: bool
    calls: list[Site] = field(default_factory=list)
    callers: list[Site] = field(default_factory=list)
    reached_from_line: int | None = None  # the loop call that makes it run per iteration
    covered: bool = False  # runs with autograd off (decorator or every caller)
    # (target, value, is_loop_item) of every assignment and loop target in its body
    bindings: list[tuple[ast.AST, ast.AST, bool]] = field(default_factory=list)
    _env: KindEnv | None = None
    _assigns: dict[str, list[ast.AST]] | None = None

    def assignments(self) -> dict[str, list[ast.AST]]:
        """Plain `name = value` assignments of the body: name -> values."""
        if self._assigns is None:
            self._assigns = {}
            for target, value, is_iter in self.bindings:
                if not is_iter and isinstance(target, ast.Name):
                    self._assigns.setdefault(target.id, []).append(value)
        return self._assigns


@dataclass(eq=False)
class Site:
    node: ast.AST
    function: Function | None
    loop: ast.AST | None
    grad_off: bool


_LEAVES = {ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global,
           ast.Nonlocal}
_SPECIAL = {ast.FunctionDef: "_visit_function", ast.AsyncFunctionDef: "_visit_function",
            ast.ClassDef: "_visit_class", ast.For: "_visit_for", ast.AsyncFor: "_visit_for",
            ast.While: "_visit_while", ast.ListComp: "_visit_comprehension",
            ast.SetComp: "_visit_comprehension", ast.DictComp: "_visit_comprehension",
            ast.GeneratorExp: "_visit_comprehension", ast.With: "_visit_with",
            ast.AsyncWith: "_visit_with"}
_FIELD_CACHE: dict[type, tuple[str, ...]] = {}


def _fields(t: type) -> tuple[str, ...]:
    """The child fields worth visiting: not ctx (Load/Store) nor operators."""
    f = _FIELD_CACHE.get(t)
    if f is None:
        f = _FIELD_CACHE[t] = tuple(n for n in t._fields if n not in ("ctx", "op", "ops"))
    return f


class ModuleScope:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.functions: list[Function] = []
        self.calls: list[Site] = []
        self.tests: list[Site] = []  # if / while / assert / ternary tests
        self.fors: list[Site] = []
        self.comprehensions: list[Site] = []
        self.module_bindings: list[tuple[ast.AST, ast.AST, bool]] = []
        self.numpy_aliases: set[str] = set()
        self.torch_aliases: set[str] = {"torch"}
        self.functional_aliases: set[str] = set()  # `import torch.nn.functional as F`
        self.imported_modules: set[str] = set()
        self._module_env: KindEnv | None = None
        self._visit_body(tree.body, None, None, False, None)
        self._propagate_loop_reach()
        self._propagate_grad_off()

    # -- queries the rules use -------------------------------------------------
    def loop_line(self, site: Site) -> int | None:
        """The line of the loop that runs this site once per iteration, or None."""
        if site.loop is not None:
            return site.loop.lineno
        fn = site.function
        while fn is not None:
            if fn.reached_from_line is not None:
                return fn.reached_from_line
            fn = fn.parent
        return None

    def via_call(self, site: Site) -> bool:
        """True when the site is in a loop only through a call from it."""
        return site.loop is None and self.loop_line(site) is not None

    def grad_off(self, site: Site) -> bool:
        if site.grad_off:
            return True
        fn = site.function
        while fn is not None:
            if fn.covered:
                return True
            fn = fn.parent
        return False

    def env(self, fn: Function | None) -> KindEnv:
        if fn is None:
            if self._module_env is None:
                self._module_env = build_env(None, self.module_bindings, self.numpy_aliases,
                                             self.torch_aliases,
                                             frozenset(self.functional_aliases))
            return self._module_env
        if fn._env is None:
            fn._env = build_env(fn.node, fn.bindings, self.numpy_aliases, self.torch_aliases,
                                frozenset(self.functional_aliases))
        return fn._env

    # -- the pass ----------------------------------------------------------------
    def _import(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                self.imported_modules.add(a.name.split(".")[0])
                if a.name == "numpy":
                    self.numpy_aliases.add(a.asname or "numpy")
                elif a.name == "torch":
                    self.torch_aliases.add(a.asname or "torch")
                elif a.name == "torch.nn.functional" and a.asname:
                    self.functional_aliases.add(a.asname)
        elif node.module:
            self.imported_modules.add(node.module.split(".")[0])
            if node.module == "torch.nn":
                self.functional_aliases.update(a.asname or a.name for a in node.names
                                               if a.name == "functional")

    def _bind(self, fn: Function | None, target: ast.AST, value: ast.AST, is_iter: bool) -> None:
        (fn.bindings if fn is not None else self.module_bindings).append((target, value, is_iter))

    def _visit_body(self, body, fn, loop, grad_off, cls) -> None:
        for stmt in body:
            self._visit(stmt, fn, loop, grad_off, cls)

    def _visit(self, node, fn, loop, grad_off, cls) -> None:  # noqa: C901 - one dispatch
        # The hot path of lint: every node of every file passes here once. Dispatch on
        # the exact type, and skip the leaves and the operator/context fields.
        t = type(node)
        if t in _LEAVES:
            return
        if t is ast.Call:
            site = Site(node, fn, loop, grad_off)
            self.calls.append(site)
            if fn is not None:
                fn.calls.append(site)
        elif t is ast.Assign:
            for target in node.targets:
                self._bind(fn, target, node.value, False)
        elif t is ast.AnnAssign or t is ast.AugAssign:
            if node.value is not None:
                self._bind(fn, node.target, node.value, False)
        elif t is ast.If or t is ast.IfExp or t is ast.Assert:
            self.tests.append(Site(node.test, fn, loop, grad_off))
        elif t is ast.Import or t is ast.ImportFrom:
            self._import(node)
            return
        elif t in _SPECIAL:
            getattr(self, _SPECIAL[t])(node, fn, loop, grad_off, cls)
            return
        for name in _fields(t):
            v = getattr(node, name, None)
            if type(v) is list:
                for item in v:
                    if isinstance(item, ast.AST):
                        self._visit(item, fn, loop, grad_off, cls)
            elif v is not None and isinstance(v, ast.AST):
                self._visit(v, fn, loop, grad_off, cls)

    def _visit_function(self, node, fn, loop, grad_off, cls) -> None:
        for d in node.decorator_list:
            self._visit(d, fn, loop, grad_off, cls)
        decorated = any(grad_off_context(d) for d in node.decorator_list)
        new = Function(node, node.name, cls, fn, decorated)
        self.functions.append(new)
        for d in node.args.defaults + node.args.kw_defaults:
            if d is not None:
                self._visit(d, fn, loop, grad_off, cls)
        # A nested def runs when called, not where it is written: fresh loop state.
        self._visit_body(node.body, new, None, decorated, None)

    def _visit_class(self, node, fn, loop, grad_off, cls) -> None:
        for d in node.decorator_list + node.bases:
            self._visit(d, fn, loop, grad_off, cls)
        self._visit_body(node.body, fn, loop, grad_off, node.name)

    def _visit_for(self, node, fn, loop, grad_off, cls) -> None:
        self.fors.append(Site(node, fn, loop, grad_off))
        self._bind(fn, node.target, node.iter, True)
        self._visit(node.iter, fn, loop, grad_off, cls)
        hot = loop if is_epoch_loop(node) else node
        self._visit(node.target, fn, hot, grad_off, cls)
        self._visit_body(node.body, fn, hot, grad_off, cls)
        self._visit_body(node.orelse, fn, loop, grad_off, cls)

    def _visit_while(self, node, fn, loop, grad_off, cls) -> None:
        self.tests.append(Site(node.test, fn, node, grad_off))
        self._visit(node.test, fn, node, grad_off, cls)
        self._visit_body(node.body, fn, node, grad_off, cls)
        self._visit_body(node.orelse, fn, loop, grad_off, cls)

    def _visit_comprehension(self, node, fn, loop, grad_off, cls) -> None:
        self.comprehensions.append(Site(node, fn, loop, grad_off))
        gens = node.generators
        self._visit(gens[0].iter, fn, loop, grad_off, cls)  # evaluated once
        for i, g in enumerate(gens):
            self._bind(fn, g.target, g.iter, True)
            if i:
                self._visit(g.iter, fn, node, grad_off, cls)
            self._visit(g.target, fn, node, grad_off, cls)
            for cond in g.ifs:
                self.tests.append(Site(cond, fn, node, grad_off))
                self._visit(cond, fn, node, grad_off, cls)
        for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
            self._visit(part, fn, node, grad_off, cls)

    def _visit_with(self, node, fn, loop, grad_off, cls) -> None:
        inner = grad_off
        for item in node.items:
            self._visit(item.context_expr, fn, loop, grad_off, cls)
            mode = grad_off_context(item.context_expr)
            if mode is not None:
                inner = mode
        self._visit_body(node.body, fn, loop, inner, cls)

    # -- propagation along same-file calls ------------------------------------
    def _resolve(self, site: Site) -> list[Function]:
        func = site.node.func
        if isinstance(func, ast.Name):
            return [f for f in self.functions if f.name == func.id and f.class_name is None]
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls")):
            cls = self._class_of(site.function)
            return [f for f in self.functions if f.name == func.attr and f.class_name == cls
                    and cls is not None]
        return []

    @staticmethod
    def _class_of(fn: Function | None) -> str | None:
        while fn is not None:
            if fn.class_name is not None:
                return fn.class_name
            fn = fn.parent
        return None

    def _propagate_loop_reach(self) -> None:
        self._callees: dict[int, list[Function]] = {}
        for site in self.calls:
            targets = self._resolve(site)
            self._callees[id(site)] = targets
            for f in targets:
                f.callers.append(site)
        queue = [s for s in self.calls if s.loop is not None]
        while queue:
            site = queue.pop()
            for f in self._callees[id(site)]:
                if f.reached_from_line is None and f is not site.function:
                    f.reached_from_line = self.loop_line(site)
                    queue.extend(f.calls)

    def _propagate_grad_off(self) -> None:
        for f in self.functions:
            f.covered = f.grad_off_decorated
        changed = True
        while changed:
            changed = False
            for f in self.functions:
                if f.covered or not f.callers:
                    continue
                outside = [s for s in f.callers if s.function is not f]  # not recursion
                if outside and all(self.grad_off(s) for s in outside):
                    f.covered = changed = True
