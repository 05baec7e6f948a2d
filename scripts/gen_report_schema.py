#!/usr/bin/env python3
"""Generate the report's JSON Schema and the schema docs' tables from the C++
field declarations (issue 35, item 1: the last link of the chain).

The chain: cpp/fastenough/report/fields/*.h declare each key once ->
_core.describe_fields("report" | "rank-summary") lists them as data -> this
script writes python/fastenough/schema/report.schema.json and the generated
tables of docs/report-schema.md and docs/rank-summary.md ->
scripts/gen_report_model.py writes the typed Python model from the schema.

    python scripts/gen_report_schema.py            # rewrite the schema and the tables
    python scripts/gen_report_schema.py --check    # exit 1 when one is stale

It needs the built core (fastenough._core). What the declarations do not say
yet (the shape of keys declared with Custom() or Extra() whose objects are not
declared: shapes, the wrappers around the per-rank lists, a finding's
evidence...; and "constraints": rules across a named object's keys, such as
measurement's reasons being empty exactly when it is complete) is in
scripts/report_schema_undeclared.json, which this script merges: a node
{"$declared": PATH} there is the object the declarations describe at PATH.
The report's own object, its keys in order, is declared in
cpp/fastenough/report/fields/report_object_fields.h.
tests/python/report/test_report_schema_generated.py fails when a checked-in output is
stale.

How a describe row becomes JSON Schema:
  type        string | integer | number | boolean (a custom key's: "... or null");
              array (a string holding a JSON array, Attr{.json_array}: any items);
              "array of integer pairs" ([a, b] each: a vector of integer pairs);
              "array of integers|numbers|strings";
              "object" / "array of objects": the rows below its path; any other
              type is a custom key, whose schema the undeclared file gives by
              path (a custom "object" or "array of objects" whose objects are
              described needs none).
  name        the object (or the listed objects) is $defs/<name>, one class of
              the typed model (a row of kind "name" names an object that has no
              row of its own).
  nullable    the type also allows null (an object: anyOf null or it).
  values      enum (plus null when nullable; a list's items); const for a single value.
  minimum     minimum (from the unit: counts, bytes, shares cannot be negative;
              or the declaration's Attr{.least}); maximum, pattern, non_empty
              (minLength 1) from Attr{.most, .pattern, .non_empty}; min_items:
              a list's minItems (Attr{.least_items}). A Custom "array of
              integers" needs no hand-written schema: its items take minimum.
  required    the object's required keys; an object is closed
              (additionalProperties: false) unless it has Extra() keys.
  meaning, unit  description, x-unit.
  kind "omitted"  $defs/omitted_rows (row_bound.h's {count, kept}).
  kind "reserved"  {"type": "null"}: a key every document has, kept for a later
              use (Reserved(): `decision`).
  kind "map"  an object of names (View<AsMap>; a Recorded() one has kind
              "recorded", its type says it): "object of strings", "object of
              strings or null", "object of integers", "object of objects" (the
              rows at PATH.* describe each value), or of integers, numbers
              (null: not finite) and strings.
  kind "recorded"  a key of a record read from another writer's file (meta.json's,
              Recorded()): not required, its value typed as a field's.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "python" / "fastenough" / "schema" / "report.schema.json"
UNDECLARED = ROOT / "scripts" / "report_schema_undeclared.json"
DOCS = {"report": ROOT / "docs" / "report-schema.md",
        "rank-summary": ROOT / "docs" / "rank-summary.md"}

_SCALARS = {"string", "integer", "number", "boolean", "array"}  # array: Attr{.json_array}
_ARRAYS = {"array of integers": "integer", "array of numbers": "number",
           "array of strings": "string"}
# A map's values (View<AsMap>) by its type; "object of objects": the rows at PATH.*.
_MAP_VALUES = {"object of strings": {"type": "string"},
               "object of strings or null": {"type": ["string", "null"]},
               "object of integers": {"type": "integer"}}


def describe(document: str) -> list[dict]:
    from fastenough import _core
    return json.loads(_core.describe_fields(document))


class SchemaBuilder:
    """JSON Schema of the objects the describe rows declare."""

    def __init__(self, rows: list[dict], custom: dict, defs: dict):
        self.rows = rows
        self.custom = custom
        self.fill = lambda node: node  # {"$declared": PATH} nodes of the custom schemas
        self.defs = defs
        self.by_parent: dict[str, list[dict]] = {}
        self.names: dict[str, str] = {}
        for r in rows:
            if r.get("name"):
                listed = r["type"] == "array of objects" and r["kind"] != "name"
                self.names[r["path"] + ("[]" if listed else "")] = r["name"]
            if r["kind"] == "name":
                continue
            parent, _, key = r["path"].rpartition(".")
            if r["kind"] == "extra":
                key = "*"
            self.by_parent.setdefault(parent, [])
            kids = self.by_parent[parent]
            if any(k["_key"] == key for k in kids):
                continue  # described twice (a struct and a wrapper row): the first wins
            kids.append({**r, "_key": key})
        self.used_custom: set[str] = set()

    def object_at(self, path: str, description: str = "") -> dict:
        """The schema of the object declared at path: a $ref when it is named."""
        name = self.names.get(path)
        if name is not None:
            if name not in self.defs:
                self.defs[name] = {}  # reserve (recursion)
                self.defs[name] = self._object(path, description)
            elif self.defs[name] != self._object(path, description, probe=True):
                raise SystemExit(f"gen_report_schema: $defs/{name} is declared differently "
                                 f"at {path}")
            return {"$ref": f"#/$defs/{name}"}
        return self._object(path, description)

    def _object(self, path: str, description: str, probe: bool = False) -> dict:
        kids = self.by_parent.get(path)
        if not kids:
            raise SystemExit(f"gen_report_schema: nothing is declared at {path}")
        node: dict = {}
        if description:
            node["description"] = description
        node["type"] = "object"
        node["required"] = [k["_key"] for k in kids if k["required"] and k["_key"] != "*"]
        props: dict = {}
        open_ = False
        for k in kids:
            if k["_key"] == "*":
                open_ = True
                props.update(copy.deepcopy(self._custom(path + ".*", probe)))
                continue
            props[k["_key"]] = self.value(k, probe)
        if not open_:
            node["additionalProperties"] = False
        node["properties"] = props
        return node

    def _custom(self, path: str, probe: bool) -> dict:
        if path not in self.custom:
            raise SystemExit(f"gen_report_schema: {path} is declared with Custom()/Extra(): "
                             f"give its schema in {UNDECLARED.relative_to(ROOT)} (\"custom\")")
        if not probe:
            self.used_custom.add(path)
        return self.fill(self.custom[path])

    def value(self, r: dict, probe: bool = False) -> dict:
        path, t = r["path"], r["type"]
        if r["kind"] == "omitted":
            node = {"$ref": "#/$defs/omitted_rows"}
        elif r["kind"] == "reserved":  # Reserved(): a key kept for later, always null
            node = {"type": "null"}
        elif t.removesuffix(" or null") in _SCALARS and (r["kind"] != "custom"
                                                          or path not in self.custom):
            t = t.removesuffix(" or null")  # a custom key's type may say it
            node = {"type": [t, "null"] if r["nullable"] else t}
            if r.get("values") and "|" not in r["values"] and not r["nullable"]:
                node = {"const": r["values"]}  # one value: the document's kind
            elif r.get("values"):
                node["enum"] = r["values"].split("|") + ([None] if r["nullable"] else [])
            if r.get("minimum") and t in ("integer", "number"):
                node["minimum"] = int(r["minimum"])
            if r.get("maximum") and t in ("integer", "number"):
                node["maximum"] = int(r["maximum"])
            if r.get("pattern") and t == "string":
                node["pattern"] = r["pattern"]
            if r.get("non_empty") and t == "string":
                node["minLength"] = 1
        elif t in _ARRAYS and (r["kind"] != "custom" or path not in self.custom):
            node = {"type": "array", "items": {"type": _ARRAYS[t]}}
            if r.get("values"):
                node["items"]["enum"] = r["values"].split("|")
            if r["kind"] == "custom" and r.get("minimum"):  # Custom(..., Attr{.least})
                node["items"]["minimum"] = int(r["minimum"])
            if r.get("min_items"):
                node["minItems"] = int(r["min_items"])
        elif t.startswith("object of "):  # View<AsMap>: (name, value) pairs as one object
            values = _MAP_VALUES.get(t) or (self.object_at(path + ".*")
                                            if t == "object of objects"
                                            else {"type": ["integer", "number", "string", "null"]})
            node = {"type": "object", "additionalProperties": values}
        elif t == "array of integer pairs" and r["kind"] != "custom":
            pair = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}],
                    "minItems": 2, "maxItems": 2}
            node = {"type": "array", "items": pair}
        elif t == "array of objects" and r["kind"] != "custom":
            node = {"type": "array", "items": self.object_at(path + "[]")}
        elif t == "object" and r["kind"] != "custom":
            node = self.object_at(path)
            if r["nullable"]:
                node = {"anyOf": [{"type": "null"}, node]}
        elif path not in self.custom and t == "object" and path in self.by_parent:
            node = self.object_at(path)  # a custom key of declared objects
            if r["nullable"]:
                node = {"anyOf": [{"type": "null"}, node]}
        elif path not in self.custom and t == "array of objects" and path + "[]" in self.by_parent:
            node = {"type": "array", "items": self.object_at(path + "[]")}
        else:
            node = copy.deepcopy(self._custom(path, probe))
        if r.get("meaning") and "description" not in node and "$ref" not in node:
            node = {"description": r["meaning"], **node}
        if r.get("unit"):
            node["x-unit"] = r["unit"]
        return node


def build_schema(rows: list[dict], undeclared: dict) -> dict:
    defs = copy.deepcopy(undeclared["defs"])
    b = SchemaBuilder(rows, undeclared["custom"], defs)

    def fill(node):
        if isinstance(node, list):
            return [fill(x) for x in node]
        if not isinstance(node, dict):
            return node
        if "$declared" in node:
            path = node["$declared"]
            obj = b.object_at(path)
            if node.get("nullable"):
                obj = {"anyOf": [{"type": "null"}, obj]}
            if node.get("description"):
                obj = {"description": node["description"], **obj}
            return obj
        return {k: fill(v) for k, v in node.items()}

    b.fill = fill
    top = b.object_at("$")
    props = dict(top["properties"])
    props.update(fill(undeclared.get("more", {})))
    for name, extra in undeclared.get("constraints", {}).items():
        if name.startswith("$"):
            continue
        if name not in defs:
            raise SystemExit(f"gen_report_schema: constraints name $defs/{name}, which no "
                             "declaration names")
        defs[name].update(copy.deepcopy(extra))
    unused = set(undeclared["custom"]) - b.used_custom
    if unused:
        raise SystemExit(f"gen_report_schema: {sorted(unused)} in {UNDECLARED.name} are no "
                         "custom keys of the declarations any more: remove them")
    schema = dict(undeclared["header"])
    schema["type"] = "object"
    schema["required"] = top["required"]
    dep = schema.pop("dependentRequired", None)
    if dep is not None:
        schema["dependentRequired"] = dep
    schema["additionalProperties"] = False
    schema["properties"] = props
    schema["$defs"] = defs
    return schema


def schema_text(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ doc tables

def _type_cell(r: dict) -> str:
    t = r["type"]
    if r.get("values"):
        t = " \\| ".join(f"`{v}`" for v in r["values"].split("|"))
    if r["nullable"] and t != "null":
        t += " or null"
    return t


def doc_table(rows: list[dict]) -> str:
    out = ["| key | type | unit | written | meaning |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        if r["kind"] == "name":
            continue
        written = {"field": "always", "derived": "always (computed)", "context": "always (context)",
                   "constant": "always", "custom": "always" if r["required"] else "when set",
                   "optional": "when set", "recorded": "when the file had it",
                   "omitted": "when rows are left out",
                   "extra": "as recorded", "map": "always", "reserved": "always (null)"}[r["kind"]]
        if r["kind"] in ("field", "custom") and not r["required"] and r["kind"] == "field":
            written = "newer documents"
        meaning = r["meaning"].replace("|", "\\|").replace("\n", " ")
        out.append(f"| `{r['path']}` | {_type_cell(r)} | {r['unit']} | {written} | {meaning} |")
    return "\n".join(out) + "\n"


BEGIN = "<!-- generated: scripts/gen_report_schema.py from the C++ declarations; do not edit -->"
END = "<!-- end generated -->"


def docs_text(text: str, table: str, doc: Path) -> str:
    m = re.search(re.escape(BEGIN) + r"\n.*?" + re.escape(END), text, flags=re.S)
    if m is None:
        raise SystemExit(f"gen_report_schema: {doc} has no generated region ({BEGIN} ... {END})")
    return text[:m.start()] + BEGIN + "\n" + table + END + text[m.end():]


# ------------------------------------------------------------------ main

def outputs() -> dict[Path, str]:
    undeclared = json.loads(UNDECLARED.read_text(encoding="utf-8"))
    report_rows = describe("report")
    out = {SCHEMA: schema_text(build_schema(report_rows, undeclared))}
    for document, doc in DOCS.items():
        rows = report_rows if document == "report" else describe(document)
        out[doc] = docs_text(doc.read_text(encoding="utf-8"), doc_table(rows), doc)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when an output is stale")
    args = ap.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        if path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        for p in stale:
            print(f"{p.relative_to(ROOT)} is stale: run scripts/gen_report_schema.py "
                  "(then scripts/gen_report_model.py)", file=sys.stderr)
        return 1
    if not args.check:
        for p in stale:
            print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
