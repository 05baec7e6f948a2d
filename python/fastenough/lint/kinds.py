"""What a name or expression visibly holds: a device tensor, a CPU tensor, a host value.

Rules about host syncs must not fire on Python floats, lists or numpy arrays
(`for lr in [0.1, 0.01]: ... lr.item()` is not a sync). Without running the
code we only see what the source makes evident, so the answer is one of:

  TENSOR      a torch tensor, device unknown (torch.* op results, tensor methods)
  CPU_TENSOR  a tensor built by a torch factory without `device=` (torch.tensor(xs),
              torch.zeros(n)): reading it back costs no device sync
  NUMPY       a numpy array or scalar
  HOST        a Python value: number, string, list, tuple, dict, range item
  UNKNOWN     anything else (a function's result, a batch from a loader, ...)

The environment is flow-insensitive per function: a name assigned two different
kinds becomes UNKNOWN, which keeps the rules quiet rather than wrong.
"""

from __future__ import annotations

import ast

from fastenough.lint.astutil import FUNCTION_NODES, dotted

TENSOR = "tensor"
CPU_TENSOR = "cpu-tensor"
NUMPY = "numpy"
HOST = "host"
UNKNOWN = "unknown"

NOT_A_DEVICE_TENSOR = (CPU_TENSOR, NUMPY, HOST)

# torch.<factory>(...) without device= builds a CPU tensor (the default device).
_FACTORIES = {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "rand",
              "randn", "randint", "randperm", "linspace", "logspace", "eye", "from_numpy"}
# torch.* callables that do not return tensors.
_TORCH_NON_TENSOR = {"device", "dtype", "Size", "is_tensor", "is_floating_point",
                     "manual_seed", "no_grad", "inference_mode", "enable_grad",
                     "set_grad_enabled", "compile", "load", "save", "Generator",
                     "get_default_dtype", "set_num_threads", "get_num_threads"}
_NON_TENSOR_PREFIXES = ("is_", "get_", "set_", "use_", "are_", "_")
# torch.<namespace>.f(...) that return tensors; any other namespace (cuda, xpu,
# backends, nn, optim, distributed, ...) tells nothing.
_TENSOR_NAMESPACES = ("nn.functional.", "linalg.", "fft.", "special.")
# Tensor methods whose result is a host value or numpy array.
_TO_HOST = {"item": HOST, "tolist": HOST, "numpy": NUMPY, "dim": HOST, "size": HOST,
            "numel": HOST, "ndimension": HOST, "element_size": HOST, "data_ptr": HOST}
_HOST_BUILTINS = {"float", "int", "len", "str", "list", "tuple", "dict", "range", "round",
                  "abs", "min", "max", "sorted", "enumerate", "zip", "bool", "set", "sum"}
# Tensor methods that keep a tensor on its device (a CPU tensor stays a CPU tensor).
_MOVE_TO_DEVICE = {"to", "cuda", "npu", "xpu"}


def _const_kind(node: ast.AST) -> str | None:
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return HOST
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp,
                         ast.DictComp)):
        return HOST
    return None


class KindEnv:
    """The kinds of the names of one function (or of the module's top level)."""

    def __init__(self, numpy_aliases: set[str], torch_aliases: set[str],
                 functional_aliases: frozenset[str] = frozenset()) -> None:
        self.names: dict[str, str] = {}
        self.numpy_aliases = numpy_aliases
        self.torch_aliases = torch_aliases
        self.functional_aliases = functional_aliases

    def bind(self, name: str, kind: str) -> None:
        old = self.names.get(name)
        self.names[name] = kind if old is None or old == kind else UNKNOWN

    def kind(self, node: ast.AST) -> str:
        k = _const_kind(node)
        if k is not None:
            return k
        if isinstance(node, ast.Name):
            return self.names.get(node.id, UNKNOWN)
        if isinstance(node, ast.Call):
            return self._call_kind(node)
        if isinstance(node, ast.BinOp):
            kinds = {self.kind(node.left), self.kind(node.right)}
            for k in (TENSOR, CPU_TENSOR, NUMPY):
                if k in kinds:
                    return k
            return HOST if kinds == {HOST} else UNKNOWN
        if isinstance(node, ast.UnaryOp):
            return self.kind(node.operand)
        if isinstance(node, ast.Subscript):
            base = self.kind(node.value)
            return base if base in (TENSOR, CPU_TENSOR, NUMPY) else UNKNOWN
        if isinstance(node, ast.Attribute):
            if node.attr in ("shape", "ndim", "dtype", "device", "requires_grad"):
                return HOST
            if node.attr in ("T", "mT", "data", "grad", "real", "imag"):
                return self.kind(node.value)
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return HOST  # `t is None`, `k in d`: identity and membership, no tensor read
            kinds = {self.kind(node.left)} | {self.kind(c) for c in node.comparators}
            for k in (TENSOR, CPU_TENSOR, NUMPY):
                if k in kinds:
                    return k
            return HOST if kinds == {HOST} else UNKNOWN
        return UNKNOWN

    def _call_kind(self, call: ast.Call) -> str:
        func = call.func
        if isinstance(func, ast.Name) and func.id in _HOST_BUILTINS:
            return HOST
        name = dotted(func)
        root, _, rest = name.partition(".")
        if "()" in rest:
            rest = ""  # torch.isnan(x).any(): a method of a result, judged by its receiver below
        if root in self.numpy_aliases and rest:
            return NUMPY
        if root in self.functional_aliases and rest:
            return TENSOR  # F.softmax(...) after `import torch.nn.functional as F`
        if root in self.torch_aliases and rest:
            leaf = rest.rsplit(".", 1)[-1]
            if "." in rest and not rest.startswith(_TENSOR_NAMESPACES):
                return UNKNOWN  # torch.cuda.is_available(), torch.nn.Linear(...), ...
            if leaf in _TORCH_NON_TENSOR or leaf.startswith(_NON_TENSOR_PREFIXES):
                return UNKNOWN
            on_device = any(k.arg == "device" for k in call.keywords)
            if leaf in _FACTORIES and not on_device:
                return CPU_TENSOR
            if call.args and not on_device and self.kind(call.args[0]) == CPU_TENSOR:
                return CPU_TENSOR  # torch.median(torch.tensor(xs)): stays on the CPU
            return TENSOR
        if isinstance(func, ast.Attribute):
            receiver = self.kind(func.value)
            if func.attr in _TO_HOST:
                return _TO_HOST[func.attr]  # .item() of anything is a host value
            if func.attr == "cpu":
                return CPU_TENSOR
            if receiver == CPU_TENSOR:
                return TENSOR if func.attr in _MOVE_TO_DEVICE else CPU_TENSOR
            if receiver in (TENSOR, NUMPY):
                return receiver
        return UNKNOWN


def _bind_target(env: KindEnv, target: ast.AST, kind: str) -> None:
    if isinstance(target, ast.Name):
        env.bind(target.id, kind)
    elif isinstance(target, (ast.Tuple, ast.List)):
        # Unpacking a tensor gives tensors; unpacking anything else tells nothing.
        for t in target.elts:
            _bind_target(env, t, kind if kind in (TENSOR, CPU_TENSOR, HOST) else UNKNOWN)


_ANNOTATION_KINDS = {"float": HOST, "int": HOST, "str": HOST, "bool": HOST, "list": HOST,
                     "tuple": HOST, "dict": HOST, "Tensor": TENSOR, "ndarray": NUMPY}


def _iter_item_kind(env: KindEnv, it: ast.AST) -> str:
    """Kind of the items of a loop iterable: a list literal of numbers gives HOST."""
    if isinstance(it, (ast.List, ast.Tuple, ast.Set)):
        kinds = {_const_kind(e) for e in it.elts}
        return HOST if kinds == {HOST} else UNKNOWN
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
        return HOST
    k = env.kind(it)
    return NUMPY if k == NUMPY else UNKNOWN


def build_env(fn_node: ast.AST | None, bindings: list[tuple[ast.AST, ast.AST, bool]],
              numpy_aliases: set[str], torch_aliases: set[str],
              functional_aliases: frozenset[str] = frozenset()) -> KindEnv:
    """The kinds of the names a function (or, for None, the module) binds.

    `bindings` are the (target, value, is_loop_item) the scope tracker collected."""
    env = KindEnv(numpy_aliases, torch_aliases, functional_aliases)
    if isinstance(fn_node, FUNCTION_NODES):
        args = fn_node.args
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            ann = a.annotation
            if isinstance(ann, ast.Subscript):
                ann = ann.value  # list[float] -> list
            leaf = dotted(ann).rsplit(".", 1)[-1] if ann is not None else ""
            if leaf in _ANNOTATION_KINDS:
                env.bind(a.arg, _ANNOTATION_KINDS[leaf])
    # In source order, so that `a = torch.zeros(3)` then `b = a + 1` resolves `b`.
    ordered = sorted(bindings, key=lambda p: (getattr(p[1], "lineno", 0),
                                              getattr(p[1], "col_offset", 0)))
    for target, value, is_iter in ordered:
        kind = _iter_item_kind(env, value) if is_iter else env.kind(value)
        _bind_target(env, target, kind)
    return env
