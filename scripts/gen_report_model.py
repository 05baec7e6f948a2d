#!/usr/bin/env python3
"""Generate python/fastenough/report/model.py from the report's JSON Schema.

The chain is: the declaration -> python/fastenough/schema/report.schema.json ->
this script -> the typed Python model (frozen classes, one per object of the
schema, each with a loader that validates its JSON once and names the JSON path
of the first thing wrong). Run it after every change to the schema:

    python scripts/gen_report_model.py            # rewrite model.py
    python scripts/gen_report_model.py --check    # exit 1 when model.py is stale

tests/python/report/test_report_model.py fails when the checked-in model.py differs from
what this script writes. The script needs only the standard library.

What the generator understands of JSON Schema (draft 2020-12), all this schema uses:
type (one or a list), $ref to #/$defs, properties, required, additionalProperties
(false: closed; otherwise the other keys are kept in `extra`; a schema of a declared
object: a map of names to model objects), allOf of a $ref
(its properties merged in), unevaluatedProperties: false (closed), oneOf/anyOf of
null and one object, items, prefixItems (kept as JSON), enum, const, minimum,
maximum, minItems, maxItems, minLength, pattern, dependentRequired, and an
if {properties: {K: {const}}} then/else on array lengths. An object with no
declared properties (decision, evidence, ...) is open JSON: a dict.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "python" / "fastenough" / "schema" / "report.schema.json"
OUT = ROOT / "python" / "fastenough" / "report" / "model.py"

_JSON_TYPES = {"integer": "int", "number": "float", "string": "str", "boolean": "bool",
               "null": "None", "array": "tuple", "object": "dict"}


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.replace("-", "_").split("_") if p)


class Gen:
    def __init__(self, schema: dict):
        self.schema = schema
        self.defs = schema.get("$defs", {})
        self.classes: dict[str, dict] = {}  # class name -> spec
        self.order: list[str] = []
        self.def_class: dict[str, str] = {}  # $defs name -> class name
        self.convs: dict[str, str] = {}  # converter expression -> its module-level name

    # ------------------------------------------------------------ resolution
    def deref(self, node):
        while isinstance(node, dict) and "$ref" in node and len(node) <= 2:
            ref = node["$ref"]
            assert ref.startswith("#/$defs/"), ref
            node = self.defs[ref[len("#/$defs/"):]]
        return node

    def is_object_class(self, node) -> bool:
        node = self.deref(node)
        if not isinstance(node, dict):
            return False
        props = self.all_properties(node)
        return bool(props) and self.types(node) in (["object"], [])

    def all_properties(self, node: dict) -> dict:
        props: dict = {}
        for part in node.get("allOf", []):
            props.update(self.all_properties(self.deref(part)))
        for k, v in node.get("properties", {}).items():
            if v is True and k in props:
                continue
            props[k] = v
        return props

    def all_required(self, node: dict) -> list:
        req: list = []
        for part in node.get("allOf", []):
            req += [r for r in self.all_required(self.deref(part)) if r not in req]
        req += [r for r in node.get("required", []) if r not in req]
        return req

    @staticmethod
    def types(node: dict) -> list:
        t = node.get("type")
        if t is None:
            return []
        return [t] if isinstance(t, str) else list(t)

    # ------------------------------------------------------------ classes
    def class_for(self, node: dict, name: str, doc_name: str) -> str:
        """The class of an object node (a $ref reuses its $defs class)."""
        if "$ref" in node and len(node) <= 2:
            def_name = node["$ref"][len("#/$defs/"):]
            if def_name not in self.def_class:
                self.def_class[def_name] = camel(def_name)
                self.add_class(camel(def_name), self.defs[def_name], f"$defs/{def_name}")
            return self.def_class[def_name]
        self.add_class(name, node, doc_name)
        return name

    def add_class(self, name: str, node: dict, where: str) -> None:
        if name in self.classes:
            raise SystemExit(f"gen_report_model: two schema objects make the class {name}")
        self.classes[name] = {}  # reserve (recursion)
        props = self.all_properties(node)
        required = self.all_required(node)
        closed = (node.get("additionalProperties") is False
                  or node.get("unevaluatedProperties") is False)
        fields = []
        for key, sub in props.items():
            attr = key + "_" if keyword.iskeyword(key) or key == "extra" else key
            fields.append({"key": key, "attr": attr, "required": key in required,
                           "node": sub,
                           "cls_hint": ("" if name == "Report" else name) + camel(key)})
        self.classes[name] = {"node": node, "fields": fields, "closed": closed,
                              "where": where, "description": node.get("description")}
        self.order.append(name)
        for f in fields:
            f["conv"], f["ann"] = self.converter(f["node"], f["cls_hint"], f"{where}.{f['key']}")
            # A key the schema requires but lets be null may be missing: a
            # report of an earlier release of fastenough.report/1 (a stored
            # baseline for `diff` or the gate) lacks the keys added since,
            # which read as None, as their null would.
            if f["required"] and (f["ann"].endswith("| None") or f["ann"] == "None"):
                f["required"] = False

    # ------------------------------------------------------------ converters
    def conv_name(self, expr: str) -> str:
        """A module-level converter (v, path) -> value, made once: `expr` builds it."""
        if expr not in self.convs:
            self.convs[expr] = f"_c{len(self.convs)}"
        return self.convs[expr]

    def converter(self, node, hint: str, where: str) -> tuple[str, str]:
        """(the name of a converter that checks and converts a value, the annotation)."""
        if node is True:
            return self.conv_name("_any"), "object"
        raw = node
        node_d = self.deref(node)
        for comb in ("oneOf", "anyOf"):
            if comb in node_d:
                alts = node_d[comb]
                nulls = [a for a in alts if self.deref(a).get("type") == "null"]
                objs = [a for a in alts if self.deref(a).get("type") != "null"]
                assert len(nulls) == 1 and len(objs) == 1, where
                conv, ann = self.converter(objs[0], hint, where)
                return self.conv_name(f"_nullable({conv})"), f"{ann} | None"
        types = self.types(node_d)
        nullable = "null" in types
        types = [t for t in types if t != "null"]
        if "enum" in node_d:
            vals = node_d["enum"]
            nullable = nullable or None in vals
            return (self.conv_name(f"_enum_fn({tuple(vals)!r})"),
                    "str | None" if nullable else "str")
        if "const" in node_d:
            return self.conv_name(f"_const_fn({node_d['const']!r})"), "str"
        if self.is_object_class(raw):
            cls = self.class_for(raw if "$ref" in raw else node_d, hint, where)
            conv = self.conv_name(f"{cls}._load")
            if nullable:
                return self.conv_name(f"_nullable({conv})"), f"{cls} | None"
            return conv, cls
        if types == ["array"]:
            if "items" in node_d and "prefixItems" not in node_d:
                item_conv, item_ann = self.converter(node_d["items"], _singular(hint),
                                                     where + "[]")
                lo, hi = node_d.get("minItems"), node_d.get("maxItems")
                conv = self.conv_name(f"_array_fn({item_conv}, {lo!r}, {hi!r})")
                ann = f"tuple[{item_ann}, ...]"
            else:
                conv, ann = self.conv_name("_json_array"), "tuple"
            if nullable:
                return self.conv_name(f"_nullable({conv})"), f"{ann} | None"
            return conv, ann
        if not types and nullable:  # {"type": "null"}: a reserved key, always null
            return self.conv_name("_scalar_fn(('null',))"), "None"
        if types == ["object"] or (not types and not self.all_properties(node_d)):
            add = node_d.get("additionalProperties")
            if types == ["object"] and isinstance(add, dict) and self.is_object_class(add):
                # a map of declared objects (View<AsMap>): a dict of model objects
                val_conv, val_ann = self.converter(add, _singular(hint), where + ".*")
                conv = self.conv_name(f"_map_fn({val_conv})")
                ann = f"dict[str, {val_ann}]"
                if nullable:
                    return self.conv_name(f"_nullable({conv})"), f"{ann} | None"
                return conv, ann
            if types == ["object"]:
                kinds = None
                if isinstance(add, dict) and add.get("type"):
                    t = add["type"]
                    kinds = tuple([t] if isinstance(t, str) else t)
                conv = self.conv_name(f"_json_object_fn({kinds!r})")
                if nullable:
                    return self.conv_name(f"_nullable({conv})"), "dict | None"
                return conv, "dict"
            return self.conv_name("_any"), "object"
        # scalars
        assert types and all(t in ("integer", "number", "string", "boolean") for t in types), \
            (where, types)
        kinds = tuple(types) + (("null",) if nullable else ())
        extra = []
        for key in ("minimum", "maximum", "minLength"):
            if key in node_d:
                extra.append(f"{key}={node_d[key]!r}")
        if "pattern" in node_d:
            extra.append(f"pattern={node_d['pattern']!r}")
        conv = self.conv_name(f"_scalar_fn({kinds!r}{''.join(', ' + e for e in extra)})")
        ann = " | ".join(_JSON_TYPES[t] for t in types) + (" | None" if nullable else "")
        if types == ["number"]:
            ann = "float | int" + (" | None" if nullable else "")
        return conv, ann

    # ------------------------------------------------------------ output
    def render(self) -> str:
        out = [HEADER]
        for name in self.order:
            out.append(self.render_class(name))
        out.append("\n\n# The converters the loaders call: (value, path) -> value, checked.")
        out += [f"{n} = {expr}" for expr, n in self.convs.items()]
        out.append(FOOTER)
        return "\n".join(out)

    def render_class(self, name: str) -> str:
        spec = self.classes[name]
        node = spec["node"]
        fields = spec["fields"]
        lines = ["", "", f"class {name}(_Record):"]
        doc = spec["description"] or f"An object of the report ({spec['where']})."
        lines.append(f'    """{_docline(doc)}"""')
        lines.append("")
        req = [f["key"] for f in fields if f["required"]]
        ordered = [f for f in fields if f["required"]] + [f for f in fields if not f["required"]]
        # What @dataclass(frozen=True, slots=True) would make, written out: the fields
        # (key_order neither compared nor shown), their slots, and __init__.
        compared = [f["attr"] for f in ordered] + ([] if spec["closed"] else ["extra"])
        lines.append(f"    __slots__ = {(*compared, 'key_order')!r}")
        params = []
        for f in ordered:
            if f["required"]:
                lines.append(f"    {f['attr']}: {f['ann']}")
                params.append(f"{f['attr']}: {f['ann']}")
            else:
                ann = (f["ann"] if f["ann"].endswith("| None") or f["ann"] == "None"
                       else f"{f['ann']} | None")
                lines.append(f"    {f['attr']}: {ann}")
                params.append(f"{f['attr']}: {ann} = None")
        if not spec["closed"]:
            lines.append("    extra: dict")
            params.append("extra: dict | None = None")
        lines.append("    key_order: tuple[str, ...]")
        params.append("key_order: tuple[str, ...] = ()")
        lines.append(f"    _FIELDS: ClassVar[tuple[str, ...]] = {tuple(compared)!r}")
        lines.append(f"    _KEYS: ClassVar[tuple[str, ...]] = {tuple(f['key'] for f in fields)!r}")
        lines.append("    _KEY_SET: ClassVar[frozenset] = frozenset(_KEYS)")
        lines.append(f"    _REQUIRED: ClassVar[tuple[str, ...]] = {tuple(req)!r}")
        lines.append("    _REQUIRED_SET: ClassVar[frozenset] = frozenset(_REQUIRED)")
        renamed = sorted(f["key"] for f in fields if f["attr"] != f["key"])
        lines.append(f"    _RENAMED: ClassVar[frozenset] = frozenset({renamed!r})")
        lines.append("")
        lines.append(f"    def __init__(self, {', '.join(params)}) -> None:")
        lines.append("        _set = object.__setattr__")
        for a in compared:
            value = "{} if extra is None else extra" if a == "extra" else a
            lines.append(f"        _set(self, {a!r}, {value})")
        lines.append("        _set(self, 'key_order', key_order)")
        lines.append("")
        lines.append("    @classmethod")
        lines.append(f"    def _load(cls, d, p) -> {name}:")
        lines.append("        if type(d) is not dict:")
        lines.append("            _not_object(d, p)")
        if req:
            lines.append("        if not d.keys() >= cls._REQUIRED_SET:")
            lines.append("            _required(d, p, cls._REQUIRED)")
        if spec["closed"]:
            lines.append("        if not d.keys() <= cls._KEY_SET:")
            lines.append("            _closed(d, p, cls._KEYS)")
        for k, deps in node.get("dependentRequired", {}).items():
            lines.append(f"        _dependent(d, p, {k!r}, {tuple(deps)!r})")
        cond = node.get("if")
        if cond:
            lines.append(f"        _if_then_else(d, p, {cond!r}, {node.get('then')!r}, "
                         f"{node.get('else')!r})")
        lines.append("        return cls(")
        for f in ordered:
            if f["required"]:
                lines.append(f"            {f['attr']}={f['conv']}(d[{f['key']!r}], "
                             f"(p, {f['key']!r})),")
            else:
                lines.append(f"            {f['attr']}=_opt(d, {f['key']!r}, p, {f['conv']}),")
        if not spec["closed"]:
            lines.append("            extra={k: v for k, v in d.items() if k not in cls._KEY_SET},")
        lines.append("            key_order=tuple(d),")
        lines.append("        )")
        lines.append("")
        lines.append("    def to_json(self) -> dict:")
        lines.append('        """This object as JSON again (the keys in the schema\'s order; an'
                     ' absent optional key stays absent)."""')
        lines.append("        return _to_json(self)")
        return "\n".join(lines)


def _singular(hint: str) -> str:
    """The class of a list's items: Phases -> Phase, Properties -> Property, PerRank ->
    PerRankItem."""
    if hint.endswith("ies"):
        return hint[:-3] + "y"
    if hint.endswith("s") and not hint.endswith("ss"):
        return hint[:-1]
    return hint + "Item"


def _docline(text: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', "'''")
    words, line, out = text.split(), "", []
    for w in words:
        if len(line) + len(w) + 1 > 88:
            out.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    out.append(line)
    return "\n    ".join(out)


HEADER = '''\
# ruff: noqa: E501
# GENERATED by scripts/gen_report_model.py from python/fastenough/schema/report.schema.json.
# Do not edit: change the schema and run the script (tests/python/report/test_report_model.py
# fails while this file is stale).
"""The typed model of a fastenough.report/1 document: one frozen class per object of
the schema (what @dataclass(frozen=True, slots=True) makes, its methods from _Record and
its __init__ written out: the decorator compiled six methods per class at every start,
45 ms of CPU for every command). Read a report with fastenough.report.load(text_or_dict),
never by indexing the JSON."""

from __future__ import annotations

from typing import ClassVar

from fastenough.report._validate import (
{imports})

SCHEMA_ID = {schema_id!r}
'''

FOOTER = ""

# What model.py may import from _validate.py (those it uses).
HELPERS = ("_Record", "_any", "_array_fn", "_closed", "_const_fn", "_dependent", "_enum_fn",
           "_if_then_else", "_json_array", "_json_object_fn", "_map_fn", "_not_object", "_nullable",
           "_opt",
           "_required", "_scalar_fn", "_to_json")


def generate(schema: dict) -> str:
    g = Gen(schema)
    g.add_class("Report", schema, "report")
    text = g.render()
    used = sorted((n for n in HELPERS if re.search(r"\b" + n + r"\b", text)), key=str.lower)
    text = text.replace("{schema_id!r}", repr(schema["title"]))
    text = text.replace("{imports}", "".join(f"    {name},\n" for name in used))
    return text.rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when model.py is stale")
    args = ap.parse_args(argv)
    text = generate(json.loads(SCHEMA.read_text(encoding="utf-8")))
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run scripts/gen_report_model.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
