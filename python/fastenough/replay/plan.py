"""From one recorded op call (a row of the report's shape census: the op's name,
its arguments' Input Dims / Input type / Input Strides / Concrete Inputs as the
profiler wrote them) to the arguments of that op's overload in this torch.

The profiler records one entry per argument of the op's schema, in order:
a tensor has its shape, strides and dtype name ("float", "c10::BFloat16"); a
scalar or an int list has type "Scalar" / "ScalarList" and its value as text in
Concrete Inputs ("1", "True", "[2, 2]"); an argument it could not spell
(None, a string, an enum it did not print) has type "" and no value. The
overload is the one whose schema takes that many arguments with tensors where
the trace has tensors; an argument recorded without a value takes its default
(or None where the schema allows it), and a required one without a value makes
the call one that cannot be replayed, said with its reason.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field

# Input type names as PyTorch's profiler writes them (c10's type names) -> the
# torch dtype's name.
DTYPES = {
    "float": "float32", "double": "float64", "c10::Half": "float16",
    "c10::BFloat16": "bfloat16", "long int": "int64", "long": "int64", "int64_t": "int64",
    "int": "int32", "short int": "int16", "short": "int16", "signed char": "int8",
    "unsigned char": "uint8", "bool": "bool", "c10::complex<float>": "complex64",
    "c10::complex<double>": "complex128", "c10::complex<c10::Half>": "complex32",
    "c10::Float8_e4m3fn": "float8_e4m3fn", "c10::Float8_e5m2": "float8_e5m2",
    "c10::Float8_e4m3fnuz": "float8_e4m3fnuz", "c10::Float8_e5m2fnuz": "float8_e5m2fnuz",
}
# c10's enum codes, as Concrete Inputs prints them for these schema types.
SCALAR_TYPES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                6: "float32", 7: "float64", 9: "complex64", 10: "complex128", 11: "bool",
                15: "bfloat16"}
MEMORY_FORMATS = {0: "contiguous_format", 1: "preserve_format", 2: "channels_last",
                  3: "channels_last_3d"}
LAYOUTS = {0: "strided"}


class NotReplayable(Exception):
    """Why a recorded call cannot be rebuilt (said to the user, never raised past
    the verb)."""


@dataclass
class TensorArg:
    shape: list[int]
    strides: list[int] | None
    dtype: str  # torch dtype name, e.g. "float32"
    dtype_guessed: bool = False  # a TensorList's element dtype is not recorded

    def describe(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        contiguous = self.strides is None or self.strides == contiguous_strides(self.shape)
        strides = "" if contiguous else f" strides {self.strides}"
        return f"{self.dtype}[{dims}]{strides}"


@dataclass
class Argument:
    name: str
    kwarg_only: bool
    # One of: a TensorArg, a list of TensorArg (TensorList), or Python source
    # text of a literal value ("1", "torch.float32", "None").
    value: object
    source: str = "recorded"  # "recorded", "default" (left out), "none"


@dataclass
class CallPlan:
    op: str  # "aten::addmm"
    namespace: str  # "aten"
    name: str  # "addmm"
    overload: str  # "default", "Tensor", ...
    arguments: list[Argument] = field(default_factory=list)

    @property
    def target(self) -> str:
        return f"torch.ops.{self.namespace}.{self.name}.{self.overload}"

    def describe(self) -> str:
        parts = []
        for a in self.arguments:
            if a.source == "default":
                continue
            if isinstance(a.value, TensorArg):
                parts.append(f"{a.name}={a.value.describe()}")
            elif isinstance(a.value, list):
                parts.append(f"{a.name}=[{', '.join(t.describe() for t in a.value)}]")
            else:
                parts.append(f"{a.name}={a.value}")
        return ", ".join(parts)


def contiguous_strides(shape: list[int]) -> list[int]:
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= max(d, 1)
    return list(reversed(out))


def _json_list(value, what: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):  # a rank summary keeps the texts as strings
        try:
            value = json.loads(value)
        except ValueError:
            raise NotReplayable(f"its {what} are not a JSON list") from None
    if not isinstance(value, list):
        raise NotReplayable(f"its {what} are not a list")
    return value


def _ints(value) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)


def _split_op(op: str) -> tuple[str, str]:
    namespace, sep, name = op.partition("::")
    if not sep or not namespace.isidentifier() or not name.isidentifier():
        raise NotReplayable("it is not a torch operator (namespace::name)")
    return namespace, name


def _packet(torch, namespace: str, name: str):
    try:
        return getattr(getattr(torch.ops, namespace), name)
    except (AttributeError, RuntimeError):
        raise NotReplayable(f"this torch has no operator {namespace}::{name}") from None


def _unwrap(t):
    """The type inside Optional[...] (torch's schema types: t.kind() names them)."""
    return t.getElementType() if t.kind() == "OptionalType" else t


def _is_tensor_type(t) -> bool:
    return _unwrap(t).kind() == "TensorType"


def _is_tensor_list_type(t) -> bool:
    base = _unwrap(t)
    return base.kind() == "ListType" and _unwrap(base.getElementType()).kind() == "TensorType"


def declared_types(schema) -> list[str]:
    """Each argument's type as the schema declares it ("MemoryFormat?", "int[2]"):
    the Python schema objects show enums as int, the declaration names them."""
    text = str(schema)
    start = text.index("(") + 1
    depth, piece, pieces = 0, "", []
    for c in text[start:]:
        if c in "([" or (c == ")" and depth > 0) or c == "]":
            depth += 1 if c in "([" else -1
        elif c == ")" and depth == 0:
            break
        if c == "," and depth == 0:
            pieces.append(piece.strip())
            piece = ""
            continue
        piece += c
    if piece.strip():
        pieces.append(piece.strip())
    return [p.split(" ")[0] for p in pieces if p != "*"]


def _recorded_kind(type_name: str) -> str:
    if type_name == "TensorList" or type_name == "GenericList":
        return "tensor_list"
    if type_name in DTYPES:
        return "tensor"
    if type_name in ("Scalar", "ScalarList"):
        return "scalar"
    if type_name == "":
        return "unknown"
    return "other"


def _fits(schema, kinds: list[str]) -> bool:
    args = schema.arguments
    if len(args) != len(kinds):
        return False
    for a, kind in zip(args, kinds, strict=True):
        if kind == "tensor" and not _is_tensor_type(a.type):
            return False
        if kind == "tensor_list" and not _is_tensor_list_type(a.type):
            return False
        if kind == "scalar" and (_is_tensor_type(a.type) or _is_tensor_list_type(a.type)):
            return False
    return True


def _literal(text: str, type_text: str) -> str:
    """Python source of a recorded scalar whose declared type is `type_text`."""
    base = type_text.rstrip("?")
    if text in ("True", "False"):
        return text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if base == "str":
            return repr(text)
        raise NotReplayable(f"a value it recorded ({text!r}) is not a literal") from None
    enums = {"ScalarType": SCALAR_TYPES, "MemoryFormat": MEMORY_FORMATS, "Layout": LAYOUTS}
    if base in enums and isinstance(value, int):
        name = enums[base].get(value)
        if name is None:
            raise NotReplayable(f"its {base} code {value} is not one this replay knows")
        return f"torch.{name}"
    if base == "bool" and isinstance(value, int):
        return "True" if value else "False"
    if base == "float" and isinstance(value, int):
        return repr(float(value))
    return repr(value)


def plan_call(row: dict, torch) -> CallPlan:
    """The overload and arguments of one recorded call (a shape census row).
    NotReplayable with the reason when it cannot be rebuilt."""
    op = row.get("op") or ""
    namespace, name = _split_op(op)
    dims = _json_list(row.get("input_dims"), "input shapes")
    types = _json_list(row.get("input_types"), "input types")
    strides = _json_list(row.get("input_strides"), "input strides")
    concrete = _json_list(row.get("input_concrete"), "concrete inputs")
    if len(dims) != len(types):
        raise NotReplayable("its shapes and types have different lengths")
    strides = strides if len(strides) == len(dims) else [None] * len(dims)
    concrete = concrete if len(concrete) == len(dims) else [""] * len(dims)
    kinds = [_recorded_kind(t if isinstance(t, str) else "") for t in types]
    if "other" in kinds:
        odd = next(t for t, k in zip(types, kinds, strict=True) if k == "other")
        raise NotReplayable(f"an argument of type {odd!r} is not one replay can make")
    packet = _packet(torch, namespace, name)
    overloads = sorted(packet.overloads(), key=lambda o: (o != "default", o))
    schema = None
    for ov in overloads:
        s = getattr(packet, ov)._schema
        if _fits(s, kinds):
            schema, overload = s, ov
            break
    if schema is None:
        raise NotReplayable(f"no overload of {op} in this torch takes the {len(kinds)} "
                            "arguments the trace recorded")
    first_dtype = next((DTYPES[t] for t, k in zip(types, kinds, strict=True)
                        if k == "tensor"), "float32")
    plan = CallPlan(op=op, namespace=namespace, name=name, overload=overload)
    declared = declared_types(schema)
    if len(declared) != len(schema.arguments):
        declared = [""] * len(schema.arguments)
    for i, a in enumerate(schema.arguments):
        t = declared[i]
        kind, text = kinds[i], concrete[i] if isinstance(concrete[i], str) else ""
        if kind == "tensor":
            shape = dims[i]
            st = strides[i] if _ints(strides[i]) and len(strides[i]) == len(shape) else None
            if not _ints(shape) or any(d < 0 for d in shape):
                raise NotReplayable(f"argument {a.name} has no usable shape")
            value = TensorArg(shape=shape, strides=st, dtype=DTYPES[types[i]])
            plan.arguments.append(Argument(a.name, a.kwarg_only, value))
        elif kind == "tensor_list":
            shapes = dims[i]
            if not isinstance(shapes, list) or not all(_ints(s) for s in shapes):
                raise NotReplayable(f"argument {a.name} has no usable shapes")
            lst = strides[i] if isinstance(strides[i], list) else []
            value = [TensorArg(shape=s, strides=(lst[j] if j < len(lst) and _ints(lst[j])
                                                 and len(lst[j]) == len(s) else None),
                               dtype=first_dtype, dtype_guessed=True)
                     for j, s in enumerate(shapes)]
            plan.arguments.append(Argument(a.name, a.kwarg_only, value))
        elif text != "":
            plan.arguments.append(Argument(a.name, a.kwarg_only, _literal(text, t)))
        elif a.has_default_value():
            plan.arguments.append(Argument(a.name, True, repr(a.default_value), "default"))
        elif a.type.kind() == "OptionalType":
            plan.arguments.append(Argument(a.name, a.kwarg_only, "None", "none"))
        else:
            raise NotReplayable(f"the trace has no value for its argument {a.name} "
                                f"({t or a.type})")
    return plan
