"""The checks the generated model (model.py) runs while it loads a report: each names
the JSON path of the value it rejects (report.findings[3].saving.share_of_step) and
raises MalformedReportError. Hand-written; model.py is generated."""

from __future__ import annotations

import dataclasses
import re
from functools import cache

from fastenough.errors import MalformedReportError

_ABSENT = object()
_KIND = {"integer": "an integer", "number": "a number", "string": "a string",
         "boolean": "true or false", "null": "null", "array": "an array", "object": "an object"}


def _show(v) -> str:
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    text = "null" if v is None else repr(v)
    return text if len(text) <= 40 else text[:39] + "…"


def _fail(p: str, what: str):
    raise MalformedReportError(p, what)


def _is(v, kind: str) -> bool:
    if kind == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == "string":
        return isinstance(v, str)
    if kind == "boolean":
        return isinstance(v, bool)
    if kind == "null":
        return v is None
    return False


def _object(d, p: str) -> dict:
    if not isinstance(d, dict):
        _fail(p, f"expected an object, got {_show(d)}")
    return d


def _required(d: dict, p: str, keys: tuple) -> None:
    for k in keys:
        if k not in d:
            _fail(p, f"the required key {k!r} is missing")


def _closed(d: dict, p: str, keys: tuple) -> None:
    if len(d) > len(keys) or any(k not in keys for k in d):
        other = next(k for k in d if k not in keys)
        _fail(p, f"the key {other!r} is not one of this object's (the schema closes it)")


def _dependent(d: dict, p: str, key: str, deps: tuple) -> None:
    if key in d:
        for k in deps:
            if k not in d:
                _fail(p, f"{key!r} is present, so {k!r} must be too")


def _if_then_else(d: dict, p: str, cond: dict, then: dict | None, other: dict | None) -> None:
    """The one conditional the schema uses: if a key has a constant, then/else bound the
    length of an array."""
    holds = all(d.get(k) == s.get("const") for k, s in cond.get("properties", {}).items())
    branch = then if holds else other
    for k, s in ((branch or {}).get("properties") or {}).items():
        v = d.get(k)
        if isinstance(v, list):
            if "maxItems" in s and len(v) > s["maxItems"]:
                _fail(f"{p}.{k}", f"at most {s['maxItems']} item(s) here, got {len(v)}")
            if "minItems" in s and len(v) < s["minItems"]:
                _fail(f"{p}.{k}", f"at least {s['minItems']} item(s) here, got {len(v)}")


def _at(d: dict, key: str, p: str, conv):
    return conv(d[key], p)


def _opt(d: dict, key: str, p: str, conv):
    v = d.get(key, _ABSENT)
    return None if v is _ABSENT else conv(v, p)


def _enum(v, p: str, values: tuple):
    if v not in values or isinstance(v, bool):
        _fail(p, f"expected one of {', '.join('null' if x is None else x for x in values)}, "
                 f"got {_show(v)}")
    return v


def _const(v, p: str, value):
    if v != value:
        _fail(p, f"expected {value!r}, got {_show(v)}")
    return v


@cache
def _regex(pattern: str):
    return re.compile(pattern)


def _scalar(v, p: str, kinds: tuple, minimum=None, maximum=None, minLength=None,  # noqa: N803
            pattern=None):
    if not any(_is(v, k) for k in kinds):
        _fail(p, f"expected {' or '.join(_KIND[k] for k in kinds)}, got {_show(v)}")
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, str):
        if minLength is not None and len(v) < minLength:
            _fail(p, f"expected at least {minLength} character(s), got {_show(v)}")
        if pattern is not None and not _regex(pattern).search(v):
            _fail(p, f"{_show(v)} does not match {pattern}")
        return v
    if minimum is not None and v < minimum:
        _fail(p, f"expected at least {minimum}, got {_show(v)}")
    if maximum is not None and v > maximum:
        _fail(p, f"expected at most {maximum}, got {_show(v)}")
    return v


def _array(v, p: str, conv, min_items=None, max_items=None) -> tuple:
    if not isinstance(v, list):
        _fail(p, f"expected an array, got {_show(v)}")
    if min_items is not None and len(v) < min_items:
        _fail(p, f"expected at least {min_items} item(s), got {len(v)}")
    if max_items is not None and len(v) > max_items:
        _fail(p, f"expected at most {max_items} item(s), got {len(v)}")
    return tuple(conv(x, f"{p}[{i}]") for i, x in enumerate(v))


def _json_array(v, p: str) -> tuple:
    """An array the schema leaves open (shapes' dims, the memory timeline): kept as JSON."""
    if not isinstance(v, list):
        _fail(p, f"expected an array, got {_show(v)}")
    return tuple(v)


def _json_object(v, p: str, value_kinds: tuple | None = None) -> dict:
    """An object the schema leaves open (a finding's evidence, the decision): a dict."""
    if not isinstance(v, dict):
        _fail(p, f"expected an object, got {_show(v)}")
    if value_kinds is not None:
        for k, x in v.items():
            if not any(_is(x, kind) for kind in value_kinds):
                _fail(f"{p}.{k}", f"expected {' or '.join(_KIND[t] for t in value_kinds)}, "
                                  f"got {_show(x)}")
    return v


def _plain(v):
    if dataclasses.is_dataclass(v):
        return _to_json(v)
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def _to_json(obj) -> dict:
    """A model object as the JSON it was loaded from, its keys in the order they came (an
    object made in Python: the schema's order, a None key left out); an open
    object's other keys (extra) included."""
    renamed = obj._RENAMED
    extra = getattr(obj, "extra", None) or {}
    order = obj.key_order or [k for k in obj._KEYS
                              if getattr(obj, k + "_" if k in renamed else k) is not None]
    order = [*order, *(k for k in extra if k not in order)]
    out = {}
    for key in order:
        if key in extra:
            out[key] = extra[key]
        else:
            out[key] = _plain(getattr(obj, key + "_" if key in renamed else key))
    return out
