"""The report's JSON Schema and the schema docs' tables are generated from the
C++ field declarations (issue 35, item 1): cpp/fastenough/report/fields/*.h ->
_core.describe_fields -> scripts/gen_report_schema.py -> report.schema.json and
the generated regions of docs/report-schema.md and docs/rank-summary.md ->
scripts/gen_report_model.py -> python/fastenough/report/model.py.

A declaration added, changed or removed without running the generators fails
here (the schema or a doc) or in test_report_model.py (the model)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from conftest import REPO

from fastenough import _core


def _generator():
    spec = importlib.util.spec_from_file_location("gen_report_schema",
                                                  REPO / "scripts" / "gen_report_schema.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_schema_and_the_doc_tables_are_generated_from_the_declarations_of_today():
    gen = _generator()
    stale = [str(path.relative_to(REPO)) for path, text in gen.outputs().items()
             if path.read_text(encoding="utf-8") != text]
    assert not stale, (f"{stale} stale against the C++ declarations: run "
                       "scripts/gen_report_schema.py, then scripts/gen_report_model.py")


def _node(schema: dict, path: str) -> dict:
    """The schema node of a describe path ("$.devices[].streams[].busy_ns")."""
    defs = schema["$defs"]

    def deref(n):
        while "$ref" in n:
            n = defs[n["$ref"].rsplit("/", 1)[1]]
        for alt in n.get("anyOf", []):
            if alt.get("type") != "null":
                return deref(alt)
        return n

    node = schema
    for part in path[2:].split("."):
        key, items = part.removesuffix("[]"), part.endswith("[]")
        if key == "*":  # a map's value (View<AsMap>)
            node = deref(deref(node)["additionalProperties"])
            continue
        node = deref(deref(node)["properties"][key])
        if items:
            node = deref(node["items"])
    return node


def test_every_declared_key_is_in_the_schema_with_its_type_and_meaning():
    schema = json.loads((REPO / "python" / "fastenough" / "schema" / "report.schema.json")
                        .read_text(encoding="utf-8"))
    rows = json.loads(_core.describe_fields("report"))
    checked = 0
    for r in rows:
        scalar = r["type"] in ("string", "integer", "number", "boolean")
        if r["kind"] in ("name", "extra", "custom") or not scalar:
            continue
        node = _node(schema, r["path"])
        if "const" in node:  # a single value: the document's kind
            assert node["const"] == r["values"], r["path"]
            continue
        types = node["type"] if isinstance(node["type"], list) else [node["type"]]
        assert r["type"] in types, r["path"]
        assert ("null" in types) == r["nullable"], r["path"]
        assert node["description"] == r["meaning"], r["path"]
        checked += 1
    assert checked > 250
    busy = _node(schema, "$.devices[].streams[].busy_ns")
    assert busy["x-unit"] == "ns"
    assert _node(schema, "$.inputs[].format")["enum"] == ["kineto", "npu-trace-view",
                                                          "legacy-array"]
    assert _node(schema, "$.devices[].kernel_count")["minimum"] == 0


def test_a_custom_key_without_a_schema_is_named(tmp_path):
    gen = _generator()
    rows = [{"path": "$.x", "type": "object", "unit": "", "nullable": False, "kind": "field",
             "meaning": "m", "required": True},
            {"path": "$.x.pairs", "type": "array of [a, b]", "unit": "", "nullable": False,
             "kind": "custom", "meaning": "m", "required": True}]
    undeclared = {"header": {}, "more": {}, "defs": {}, "custom": {}}
    with pytest.raises(SystemExit, match=r"\$\.x\.pairs is declared with Custom"):
        gen.build_schema(rows, undeclared)
