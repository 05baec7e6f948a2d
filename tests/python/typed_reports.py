"""The renderers take the typed Report (fastenough.report.load), read once at the
edge as the CLI does; the tests build their reports as JSON dicts (a real report,
edited) and go through these, which load the dict first: every edited fixture is
also a valid fastenough.report/1 document."""

from __future__ import annotations

import copy

from fastenough.render.html import view_to_html
from fastenough.render.markdown import view_to_markdown
from fastenough.render.terminal import print_view
from fastenough.render.view.build import build_view as _build_view
from fastenough.report import Report, load


def typed(report: dict | Report) -> Report:
    """The typed reading of `report`; a hand-made one is completed first (complete():
    the keys it leaves out, empty), a real one is loaded as it is."""
    return report if isinstance(report, Report) else load(complete(report))


def build_view(report: dict | Report, run_dir=None):
    return _build_view(typed(report), run_dir)


def report_to_markdown(report: dict | Report) -> str:
    return view_to_markdown(build_view(report))


def report_to_html(report: dict | Report, run_dir=None) -> str:
    return view_to_html(build_view(report, run_dir))


def print_report(report: dict | Report, console=None) -> None:
    print_view(build_view(report), console)


def with_parts(base: dict, **parts) -> Report:
    """`base` (a whole report) with the top-level keys `parts` replaced, loaded."""
    out = copy.deepcopy(base)
    out.update(parts)
    return load(out)


def minimal_report(**parts) -> dict:
    """The least a fastenough.report/1 document holds (every list empty, no run), with
    the top-level keys `parts` added: for tests of one section."""
    doc = {
        "schema": "fastenough.report/1", "tool_version": "0.1.0", "inputs": [],
        "meta": {"device_properties": [], "world_size": 1, "backend": ""},
        "counters": [], "phases": [],
        "steps": {"count": 0, "steady_count": 0, "per_rank": []},
        "devices": [], "top_kernels": [], "top_ops": [], "top_ops_by_self": [],
        "launch": {"kernel_count": 0, "launched_count": 0, "short_kernel_count": 0,
                   "per_rank": []},
        "shapes": [], "findings": [],
    }
    doc.update(parts)
    return doc


class Partial:
    """A part of a report made by hand for a test of the lines that read it (only the
    keys they read): its keys as attributes, as the typed model names them, None
    where absent; lists read as tuples. Not validated: a whole report goes through
    typed()."""

    def __init__(self, d: dict):
        self._d = d

    def __getattr__(self, key: str):
        if key.startswith("__"):
            raise AttributeError(key)
        return _partial(self._d.get(key))


def _partial(v):
    if isinstance(v, dict):
        return Partial(v)
    if isinstance(v, list):
        return tuple(_partial(x) for x in v)
    return v


def complete(doc: dict) -> dict:
    """`doc` (a report built by hand with the keys a test is about) with every key the
    schema requires and the test left out added, empty: 0, "", false, [], or an object
    completed the same way (a run's measurement and run_details too). The figures the
    test wrote stay as they are."""
    from fastenough.schema import report_schema

    schema = report_schema()
    out = copy.deepcopy(doc)
    for key, needs in schema.get("dependentRequired", {}).items():
        if key in out:
            for k in needs:
                out.setdefault(k, {})
    return _fill(out, schema, schema)


def _resolve(s: dict, root: dict) -> dict:
    while "$ref" in s:
        s = root["$defs"][s["$ref"].rsplit("/", 1)[1]]
    return s


def _empty(s: dict, root: dict):
    s = _resolve(s, root)
    kinds = s.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return s["enum"][0]
    if "object" in kinds:
        return _fill({}, s, root)
    if s.get("minimum", 0) > 0:  # 0 is not a value of it (a signal number): none, or the least
        return None if "null" in kinds else s["minimum"]
    for kind, value in (("array", []), ("integer", 0), ("number", 0), ("string", ""),
                        ("boolean", False), ("null", None)):
        if kind in kinds:
            return value
    for alt in s.get("oneOf", []) + s.get("anyOf", []):
        return _empty(alt, root)
    return None


def _fill(value, s: dict, root: dict):
    s = _resolve(s, root)
    if isinstance(value, dict):
        props = s.get("properties", {})
        for key in s.get("required", []):
            if key not in value and key in props:
                value[key] = _empty(props[key], root)
        for key, v in value.items():
            if key in props:
                value[key] = _fill(v, props[key], root)
    elif isinstance(value, list) and isinstance(s.get("items"), dict):
        return [_fill(v, s["items"], root) for v in value]
    return value
