"""CPython's `ast` in the text form of the C++ parser's dump (cpp/fastenough/pysrc/dump.h).

`cpython_dump(source)` and `normalise(_core.pysrc_dump(source)[0])` must be equal
line for line when the C++ parser agrees with CPython on a file. The field table
mirrors FieldsOf() in cpp/fastenough/pysrc/syntax_tree.cc.
"""

from __future__ import annotations

import ast
import re

_FIELDS = {
    "Module": ["body"],
    "FunctionDef": ["args", "body", "decorator_list", "returns", "type_params"],
    "AsyncFunctionDef": ["args", "body", "decorator_list", "returns", "type_params"],
    "ClassDef": ["bases", "keywords", "body", "decorator_list", "type_params"],
    "Return": ["value"], "Expr": ["value"], "Await": ["value"], "Yield": ["value"],
    "YieldFrom": ["value"], "Attribute": ["value"], "Starred": ["value"],
    "keyword": ["value"], "MatchValue": ["value"],
    "Delete": ["targets"], "Assign": ["targets", "value"],
    "TypeAlias": ["name", "type_params", "value"],
    "AugAssign": ["target", "value"], "AnnAssign": ["target", "annotation", "value"],
    "For": ["target", "iter", "body", "orelse"], "AsyncFor": ["target", "iter", "body", "orelse"],
    "While": ["test", "body", "orelse"], "If": ["test", "body", "orelse"],
    "With": ["items", "body"], "AsyncWith": ["items", "body"], "Match": ["subject", "cases"],
    "Raise": ["exc", "cause"], "Try": ["body", "handlers", "orelse", "finalbody"],
    "TryStar": ["body", "handlers", "orelse", "finalbody"], "Assert": ["test", "msg"],
    "Import": ["names"], "ImportFrom": ["names"], "Global": ["names"], "Nonlocal": ["names"],
    "BoolOp": ["values"], "JoinedStr": ["values"], "NamedExpr": ["target", "value"],
    "BinOp": ["left", "right"], "UnaryOp": ["operand"], "Lambda": ["args", "body"],
    "IfExp": ["test", "body", "orelse"], "Dict": ["keys", "values"], "Set": ["elts"],
    "List": ["elts"], "Tuple": ["elts"], "ListComp": ["elt", "generators"],
    "SetComp": ["elt", "generators"], "GeneratorExp": ["elt", "generators"],
    "DictComp": ["key", "value", "generators"], "Compare": ["left", "ops", "comparators"],
    "Call": ["func", "args", "keywords"], "FormattedValue": ["value", "format_spec"],
    "Subscript": ["value", "slice"], "Slice": ["lower", "upper", "step"],
    "comprehension": ["target", "iter", "ifs"], "ExceptHandler": ["type", "body"],
    "arguments": ["posonlyargs", "args", "vararg", "kwonlyargs", "kw_defaults", "kwarg",
                  "defaults"],
    "arg": ["annotation"], "withitem": ["context_expr", "optional_vars"],
    "match_case": ["pattern", "guard", "body"], "MatchSequence": ["patterns"],
    "MatchOr": ["patterns"], "MatchMapping": ["keys", "patterns"],
    "MatchClass": ["cls", "patterns", "kwd_attrs", "kwd_patterns"], "MatchAs": ["pattern"],
    "TypeVar": ["bound", "default_value"], "ParamSpec": ["default_value"],
    "TypeVarTuple": ["default_value"],
}
_NO_POSITION = {"Module", "comprehension", "arguments", "withitem", "match_case", "cmpop",
                "identifier"}
_IDENTIFIER_LISTS = {("Global", "names"), ("Nonlocal", "names"), ("MatchClass", "kwd_attrs")}


def _none(v) -> str:
    return "None" if v is None else str(v)


def _constant(v) -> str:
    if v is None or v is True or v is False:
        return str(v)
    if v is Ellipsis:
        return "Ellipsis"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"int:{v}"
    if isinstance(v, float):
        return f"float:{v!r}"
    if isinstance(v, complex):
        return f"complex:{v!r}"
    if isinstance(v, str):
        return "str:" + v.encode("utf-8", "surrogatepass").hex()
    if isinstance(v, bytes):
        return "bytes:" + v.hex()
    raise TypeError(type(v))


def _attributes(node: ast.AST) -> str:
    name = type(node).__name__
    parts: list[str] = []
    if name == "Name":
        parts.append(f"id={node.id}")
    elif name == "Attribute":
        parts.append(f"attr={node.attr}")
    elif name in ("FunctionDef", "AsyncFunctionDef", "ClassDef", "TypeVar", "ParamSpec",
                  "TypeVarTuple"):
        parts.append(f"name={node.name}")
    elif name in ("arg", "keyword"):
        parts.append(f"arg={_none(node.arg)}")
    elif name == "alias":
        parts += [f"name={node.name}", f"asname={_none(node.asname)}"]
    elif name == "ImportFrom":
        parts += [f"module={_none(node.module)}", f"level={node.level or 0}"]
    elif name in ("ExceptHandler", "MatchAs", "MatchStar"):
        parts.append(f"name={_none(node.name)}")
    elif name == "MatchMapping":
        parts.append(f"rest={_none(node.rest)}")
    elif name in ("BinOp", "AugAssign", "UnaryOp", "BoolOp"):
        parts.append(f"op={type(node.op).__name__}")
    elif name == "AnnAssign":
        parts.append(f"simple={node.simple}")
    elif name == "comprehension":
        parts.append(f"is_async={node.is_async}")
    elif name == "FormattedValue":
        parts.append(f"conversion={node.conversion}")
    elif name in ("Constant", "MatchSingleton"):
        parts.append(f"value={_constant(node.value)}")
    return "".join(" " + p for p in parts)


def cpython_dump(source: str) -> str:
    tree = ast.parse(source)
    out: list[str] = []
    _dump_with_ops(tree, "root", 0, True, out)
    return "\n".join(out) + "\n"


def _dump_with_ops(node: ast.AST, field: str, indent: int, positions: bool,
                   out: list[str]) -> None:
    # Compare.ops are nodes in the C++ tree ("cmpop"); emit them in field order.
    name = type(node).__name__
    line = "  " * indent + f"{field}: {name}"
    if positions and name not in _NO_POSITION:
        line += f" @{node.lineno}:{node.col_offset}-{node.end_lineno}:{node.end_col_offset}"
    out.append(line + _attributes(node))
    inner = positions and name != "JoinedStr"
    for f in _FIELDS.get(name, []):
        value = getattr(node, f, None)
        if isinstance(value, list):
            for i, item in enumerate(value):
                label = f"{f}[{i}]"
                if (name, f) in _IDENTIFIER_LISTS:
                    out.append("  " * (indent + 1) + f"{label}: identifier name={item}")
                elif name == "Compare" and f == "ops":
                    out.append("  " * (indent + 1) + f"{label}: cmpop op={type(item).__name__}")
                elif item is None:
                    out.append("  " * (indent + 1) + f"{label}: None")
                else:
                    _dump_with_ops(item, label, indent + 1, inner, out)
        elif isinstance(value, ast.AST):
            _dump_with_ops(value, f, indent + 1, inner, out)


_NUMBER = re.compile(r"value=(int|float|complex):(\S+)")


def normalise(cpp_dump: str) -> str:
    """The C++ dump with number literals as Python prints their values."""
    def fix(m: re.Match) -> str:
        kind, text = m.group(1), m.group(2).replace("_", "")
        if kind == "int":
            value = int(text, 0) if text.lstrip("0") != "" else 0
            return f"value=int:{value}"
        if kind == "float":
            return f"value=float:{float(text)!r}"
        return f"value=complex:{complex(text)!r}"
    return _NUMBER.sub(fix, cpp_dump)


def first_difference(a: str, b: str) -> str | None:
    """The first differing line of two dumps with a little context, or None."""
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb, strict=False)):
        if x != y and not _raw_str_match(x, y):
            ctx = "\n".join(la[max(0, i - 3):i])
            return f"{ctx}\n- cpython: {x}\n+ cpp:     {y}"
    if len(la) != len(lb):
        return f"lengths differ: cpython {len(la)} lines, cpp {len(lb)} lines"
    return None


def _raw_str_match(cpython_line: str, cpp_line: str) -> bool:
    # The C++ parser keeps \N{...} escapes undecoded and says so with str:?.
    if "value=str:?" not in cpp_line:
        return False
    return re.sub(r"value=str:\S*", "", cpython_line) == re.sub(r"value=str:\S*", "", cpp_line)
