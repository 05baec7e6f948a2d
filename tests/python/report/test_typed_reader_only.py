"""No Python code indexes the raw report dict outside the typed loader (issue 35 item 3).

python/fastenough/report/ reads a fastenough.report/1 document once (`load(json) ->
Report`); every other module of the package takes the typed Report. Two checks over
the whole package (every module outside report/):

- by name: no `report.get(...)`, `report[...]`, `(report or {})` or parameter
  `report: dict` (a reader converted to the Report keeps the name `report`);
- by where parsed JSON goes: every JSON parse (json.load / json.loads, and the
  package's own functions that return one, found here: mcp/calls.read_json,
  inputs/json_input.parse_json, ...) either goes only into the typed loader
  (`load`, or a function that hands its argument to it), compared with None or
  checked with isinstance on the way, or is dropped (a check that the text is
  JSON), or parses a document that is not a report:
  those functions are listed in NOT_REPORTS below, each with what it reads.

A new module that parses a report and indexes the dict fails the second check until
it reads the Report instead (or, for a document that is not a report, says which in
NOT_REPORTS)."""

from __future__ import annotations

import ast
import re
import sys

import pytest
from conftest import REPO

PKG = REPO / "python" / "fastenough"
MODULES = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                 if p.relative_to(PKG).parts[0] != "report")

# module -> the functions in it that parse JSON that is no report ("*": all of the
# module's), and what each reads.
NOT_REPORTS: dict[str, dict[str, str]] = {
    # The JSON Schema itself.
    "schema/__init__.py": {"*": "report.schema.json, the JSON Schema"},
    # The run directory's other files.
    "store/run_dir.py": {"read_agents": "agent/<pid>.json, the agents' records"},
    "cli/decide.py": {"environment_versions": "agent/<pid>.json, the agents' records"},
    "store/repeatability.py": {"earlier_runs_of": "meta.json of a run"},
    "render/run_files.py": {"*": "steps.jsonl / samples: one record a line"},
    "diff/steps.py": {"*": "steps.jsonl"},
    "cli/demo.py": {"_lines": "the demo's .jsonl records"},
    "mcp/tools.py": {"describe": "a line of phases.jsonl (the progress of a run)",
                     "_document": "the JSON the other verbs print (fastenough.ab/1, "
                                  "compare/1, diff/1, decide/1, lint/1, replay/1); a "
                                  "report goes through _report_document"},
    "supervisor/in_job.py": {"_manifest": "rank-summaries/manifest.json"},
    "api.py": {"*": "protocol.json (fastenough.record's fields)"},
    "ab/protocol.py": {"*": "protocol.json and steps.jsonl of an A/B run"},
    # Documents of other verbs and of the core that are no report.
    "compare.py": {"compare_paths": "the fastenough.compare/1 document"},
    "diff/document.py": {"*": "the core's trace diff (fastenough.diff/1's trace part)"},
    "cli/replay.py": {"*": "the core's shape census rows"},
    "replay/plan.py": {"*": "a Concrete Inputs value of the trace"},
    "ranks/rank_summaries.py": {"*": "rank summaries (fastenough.rank-summary/1)"},
    "ranks/dask_executor.py": {"*": "rank summaries (fastenough.rank-summary/1)"},
    # Not from a file: the agent's options, and the MCP wire.
    "agent/bootstrap.py": {"*": "FASTENOUGH_AGENT_OPTS, the agent's options"},
    "agent/own_cost.py": {"planted_by_env": "FASTENOUGH_TEST_OWN_COST, a cost a test plants"},
    "mcp/wire.py": {"*": "JSON-RPC messages (the MCP wire)"},
}


def _tree(module: str) -> ast.Module:
    return ast.parse((PKG / module).read_text(encoding="utf-8"), module)


def _name(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Attribute):
        if isinstance(f.value, ast.Name) and f.value.id in ("json", "_core"):
            # json.load(s); the core's functions give text (the loader parses it).
            return f"{f.value.id}.{f.attr}"
        return f.attr
    return f.id if isinstance(f, ast.Name) else None


def _functions(tree: ast.AST):
    """Every function and its nested ones, each with its own body's nodes (not the
    nested functions')."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, list(_own_nodes(node))


def _own_nodes(fn):
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))


def _parents(nodes) -> dict:
    out = {}
    for n in nodes:
        for c in ast.iter_child_nodes(n):
            out[c] = n
    return out


def _loader_aliases(tree: ast.Module) -> set[str]:
    """The names under which a module imports the typed loader."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("fastenough.report",
                                                                "fastenough.report.load"):
            out |= {a.asname or a.name for a in node.names if a.name == "load"}
    return out


class _Flow:
    """Where a parsed value (a call, or a name bound to one) goes inside a function."""

    def __init__(self, parses: set[str], loaders: set[str]):
        self.parses, self.loaders = parses, loaders

    def use_ok(self, node, parents) -> str:
        """'ok' (into the loader, compared with None, isinstance), 'returned', or the
        offending use."""
        parent = parents.get(node)
        while isinstance(parent, ast.IfExp) and node is not parent.test:
            node, parent = parent, parents.get(parent)
        if isinstance(parent, ast.Call) and node in parent.args:
            name = _name(parent)
            if name in self.loaders or name == "isinstance":
                return "ok"
        if isinstance(parent, ast.Compare) and all(
                isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
            return "ok"
        if isinstance(parent, ast.Return):
            return "returned"
        if isinstance(parent, ast.Expr):
            return "ok"  # parsed to check it is JSON, the value dropped
        return ast.unparse(parent) if parent is not None else "?"

    def check(self, fn, nodes) -> tuple[list[str], bool, set[str]]:
        """(offending uses, whether a parse is returned, the parameters handed to a
        loader)."""
        parents = _parents([fn, *nodes])
        bad, returned, bound = [], False, set()
        for n in nodes:
            if isinstance(n, ast.Call) and _name(n) in self.parses:
                parent = parents.get(n)
                if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and \
                        isinstance(parent.targets[0], ast.Name):
                    bound.add(parent.targets[0].id)
                    continue
                use = self.use_ok(n, parents)
                returned |= use == "returned"
                if use not in ("ok", "returned"):
                    bad.append(f"line {n.lineno}: {use}")
        params = {a.arg for a in fn.args.args}
        handed = set()
        for n in nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in bound:
                use = self.use_ok(n, parents)
                returned |= use == "returned"
                if use not in ("ok", "returned"):
                    bad.append(f"line {n.lineno}: {use}")
            if isinstance(n, ast.Call) and _name(n) in self.loaders:
                handed |= {a.id for a in n.args[:1] if isinstance(a, ast.Name)} & params
        return bad, returned, handed


def _allowed(module: str, fn_name: str) -> bool:
    listed = NOT_REPORTS.get(module, {})
    return "*" in listed or fn_name in listed


def _analysis() -> dict[str, list[str]]:
    """module -> the uses of parsed JSON that go elsewhere than the typed loader."""
    trees = {m: _tree(m) for m in MODULES}
    parses = {"json.load", "json.loads"}
    loaders = {"load"}
    # To a fixpoint: the functions that return what they parse are parses too, and those
    # that hand their first parameter to the loader are loaders.
    while True:
        flow = _Flow(parses, loaders)
        more_parses, more_loaders = set(), set()
        for m, tree in trees.items():
            for fn, nodes in _functions(tree):
                if _allowed(m, fn.name):
                    continue
                _, returned, handed = _Flow(parses, loaders | _loader_aliases(tree)).check(
                    fn, nodes)
                if returned:
                    more_parses.add(fn.name)
                if fn.args.args and fn.args.args[0].arg in handed:
                    more_loaders.add(fn.name)
        if more_parses <= parses and more_loaders <= loaders:
            break
        parses |= more_parses
        loaders |= more_loaders
    out = {}
    for m, tree in trees.items():
        flow = _Flow(parses, loaders | _loader_aliases(tree))
        found = []
        for fn, nodes in _functions(tree):
            if _allowed(m, fn.name):
                continue
            bad, _, _ = flow.check(fn, nodes)
            found += [f"{fn.name}, {b}" for b in bad]
        out[m] = found
    return out


@pytest.fixture(scope="module")
def analysis() -> dict[str, list[str]]:
    return _analysis()


@pytest.mark.parametrize("module", MODULES)
def test_no_module_reads_a_report_as_a_dict_by_its_name(module):
    text = (PKG / module).read_text(encoding="utf-8")
    # report.get(...), report[...], (report or {}), or a function taking the dict.
    raw = re.findall(r"\b(?:report|rep)(?:\.get\(|\[|\) or \{\}| or \{\})"
                     r"|[(,]\s*report: dict\b", text)
    assert raw == [], f"{module} reads the report as a dict: {raw}"


def test_parsed_json_goes_only_into_the_typed_loader(analysis):
    found = {m: uses for m, uses in analysis.items() if uses}
    assert found == {}, (
        "JSON parsed and then used other than by fastenough.report.load (if it is a "
        f"report, read the typed Report; if not, name the document in NOT_REPORTS): {found}")


def test_the_allow_list_names_only_functions_that_exist():
    for module, listed in NOT_REPORTS.items():
        assert (PKG / module).is_file(), module
        names = {fn.name for fn, _ in _functions(_tree(module))}
        assert set(listed) - {"*"} <= names, (module, set(listed) - names)


def test_the_check_finds_a_report_indexed_after_a_parse(tmp_path, monkeypatch):
    """The check itself: each way a parsed report can be indexed is found; handing it
    to the loader (directly, through a wrapper, after a None or isinstance check) is
    not."""
    bad = '''
import json
from fastenough.report import load as read_report

def parsed(path):
    return json.loads(open(path).read())

def typed(doc):
    return read_report(doc)

def one(text):
    return json.loads(text)["steps"]

def two(path):
    doc = parsed(path)
    return doc.get("findings")

def three(path):
    doc = parsed(path)
    if doc is None or not isinstance(doc, dict):
        return None
    return typed(doc) if doc is not None else read_report(doc)

def four(text):
    for f in json.loads(text)["findings"]:
        print(f)

def five(text):
    json.loads(text)  # is it JSON at all?
    return read_report(text)
'''
    (tmp_path / "m.py").write_text(bad)
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "PKG", tmp_path)
    monkeypatch.setattr(here, "MODULES", ["m.py"])
    found = _analysis()["m.py"]
    assert [f.split(",")[0] for f in found] == ["one", "two", "four"], found
