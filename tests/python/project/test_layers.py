"""The Python package's layers, lowest first: every import (at module level or
inside a function, `import x` or `from x import y`) goes to the importer's own
layer or one below it, never back up; stated as a table and checked by parsing
every module of python/fastenough with ast. The C++ core keeps the same rule for
its #includes (CPP_LAYERS below; docs/architecture.md shows both maps).

A room is a package under fastenough/ (fastenough.render) or a module at its top
(fastenough.errors). A new room goes into the table, in the layer its imports
allow; a test that fails here names the import that points back up."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import REPO

PACKAGE = REPO / "python" / "fastenough"

# (layer, rooms), lowest first: what a verb reads (inputs, the run store, the typed
# report the core wrote) -> the glue around the core's analyses -> presentation ->
# orchestration -> the commands, thin verbs on top.
LAYERS: list[tuple[str, set[str]]] = [
    # the core binding, errors, text and file primitives
    ("foundation",
     {"fastenough", "_core", "errors", "regular_file", "visible", "die_with_parent",
      "source_roots", "findings_doc", "api", "schema"}),
    # inputs, outputs, the run store, the typed report, the in-process agent
    ("inputs and model",
     {"inputs", "outputs", "store", "report", "agent", "demo"}),
    # the glue around the core's analyses: compare, A/B, diff, lint, replay, ranks
    ("analysis",
     {"compare", "ab", "diff", "lint", "replay", "ranks"}),
    # terminal, Markdown, HTML
    ("presentation",
     {"render"}),
    # the supervisor of `fastenough run`, the MCP server
    ("orchestration",
     {"supervisor", "mcp"}),
    # measure: the in-process verbs (fastenough.time, sweep_batch, abba) print
    # their results with render/units.py, as a command does.
    ("verbs",
     {"cli", "__main__", "measure"}),
]
LAYER_OF = {room: i for i, (_, rooms) in enumerate(LAYERS) for room in rooms}

# fastenough/__init__.py is the public façade: it names api's, measure's and
# compare's functions lazily (module __getattr__), so it may import any layer;
# the other modules import it only for __version__.
FACADE = PACKAGE / "__init__.py"

def _module_name(path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path, text: str | None = None) -> list[tuple[str, int]]:
    """(imported name, line) of every import of fastenough in `path` (or in `text`,
    read as if it were `path`); `from fastenough.x import y` is fastenough.x.y."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    source = path.read_text() if text is None else text
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            out += [(f"{base}.{a.name}", node.lineno) for a in node.names]
    return [(m, ln) for m, ln in out if m == "fastenough" or m.startswith("fastenough.")]


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fastenough"


def _target_module(imported: str) -> str:
    """The module an imported name lives in: fastenough.x.y.f -> fastenough.x.y;
    `from fastenough import __version__` -> fastenough (the façade)."""
    parts = imported.split(".")
    while len(parts) > 1:
        rel = PACKAGE.parent.joinpath(*parts)
        if rel.is_dir() or rel.with_suffix(".py").exists() or parts[1:] == ["_core"]:
            break
        parts.pop()
    return ".".join(parts)


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if p != FACADE)


def _back_up_imports() -> list[tuple[str, str, str]]:
    found = []
    for path in _modules():
        importer = _module_name(path)
        for imported, line in _imports(path):
            target = _target_module(imported)
            a, b = LAYER_OF[_room(importer)], LAYER_OF[_room(target)]
            if b > a:
                found.append((importer, target,
                              f"{path.relative_to(REPO)}:{line}: {importer} ({LAYERS[a][0]}) "
                              f"imports {imported} ({LAYERS[b][0]})"))
    return found


def test_every_room_has_a_layer():
    rooms = {_room(_module_name(p)) for p in _modules()}
    assert not rooms - LAYER_OF.keys(), (
        f"rooms without a layer in LAYERS: {sorted(rooms - LAYER_OF.keys())}")
    gone = {r for r in LAYER_OF if r not in rooms and r not in ("fastenough", "_core")}
    assert not gone, f"LAYERS names rooms that no longer exist: {sorted(gone)}"


def test_no_import_points_back_up_the_layers():
    found = [why for _, _, why in _back_up_imports()]
    assert not found, "imports pointing back up the layers:\n" + "\n".join(found)


@pytest.mark.parametrize("source, expected", [
    ("from fastenough.cli.main import main\n", ["fastenough.cli.main.main"]),
    ("from ..render import units\n", ["fastenough.render.units"]),
    ("import fastenough.render.units\n", ["fastenough.render.units"]),
])
def test_the_import_reader_sees_every_form(source, expected):
    """The checker reads absolute, relative and plain imports alike, inside functions
    too (a reader that missed one form would pass a back-up import)."""
    assert [m for m, _ in _imports(PACKAGE / "store" / "history.py", source)] == expected


def test_a_back_up_import_is_named():
    """store (inputs layer) importing render (presentation) is what the test refuses."""
    path = PACKAGE / "store" / "history.py"
    imported = [m for m, _ in _imports(path, "def f():\n    from fastenough.render import units\n")]
    assert imported == ["fastenough.render.units"]
    target = _target_module(imported[0])
    assert target == "fastenough.render.units"
    assert LAYER_OF[_room(target)] > LAYER_OF[_room(_module_name(path))]
    assert _target_module("fastenough.__version__") == "fastenough"
    assert _target_module("fastenough._core") == "fastenough._core"


# The C++ core's rooms (cpp/fastenough/<room>/), lowest first, by the same rule for
# #include "fastenough/<room>/...": the parser and the analyses below the report
# model, the pipeline and the run-directory analysis above it. Unit tests
# (*_test.cc) may include any room (a report test builds its report with the
# pipeline).
CPP_LAYERS: list[set[str]] = [
    {"util"},
    {"trace", "stats", "pysrc", "sample"},
    {"timeline", "roofline", "lint"},
    {"analysis"},
    {"findings"},
    {"report", "checks", "decide"},
    {"pipeline", "compare", "diff"},
    {"rundir", "annotate"},
]
CPP_LAYER_OF = {room: i for i, rooms in enumerate(CPP_LAYERS) for room in rooms}
CPP = REPO / "cpp" / "fastenough"


def test_every_cpp_room_has_a_layer():
    rooms = {p.name for p in CPP.iterdir() if p.is_dir()}
    assert rooms == CPP_LAYER_OF.keys(), (
        f"rooms without a layer: {sorted(rooms - CPP_LAYER_OF.keys())}; "
        f"layers naming no room: {sorted(CPP_LAYER_OF.keys() - rooms)}")


def test_no_cpp_include_points_back_up():
    found = []
    for path in sorted(CPP.rglob("*")):
        if path.suffix not in (".cc", ".h") or path.name.endswith("_test.cc"):
            continue
        room = path.relative_to(CPP).parts[0]
        for ln, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r'\s*#\s*include\s+"fastenough/(\w+)/', line)
            if m and CPP_LAYER_OF[m.group(1)] > CPP_LAYER_OF[room]:
                found.append(f"{path.relative_to(REPO)}:{ln}: {room} includes {m.group(1)}")
    assert not found, "includes pointing back up the C++ layers:\n" + "\n".join(found)
