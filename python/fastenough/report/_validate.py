"""The checks the generated model (model.py) runs while it loads a report. A value's
path is kept as a chain of (parent, key) tuples, made into text
(report.findings[3].saving.share_of_step) only when a check fails and raises
MalformedReportError. Hand-written; model.py is generated."""

from __future__ import annotations

import dataclasses
import re

from fastenough.errors import MalformedReportError

_ABSENT = object()
_KIND = {"integer": "an integer", "number": "a number", "string": "a string",
         "boolean": "true or false", "null": "null", "array": "an array", "object": "an object"}
# The Python types of each JSON kind; type(v) in ..., so that true is no integer.
_TYPES = {"integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
          "null": (type(None),)}


def _path(p) -> str:
    keys = []
    while isinstance(p, tuple):
        p, key = p
        keys.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return p + "".join(reversed(keys))


def _show(v) -> str:
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    text = "null" if v is None else repr(v)
    return text if len(text) <= 40 else text[:39] + "…"


def _fail(p, what: str):
    raise MalformedReportError(_path(p), what)


def _not_object(d, p) -> None:
    _fail(p, f"expected an object, got {_show(d)}")


def _required(d: dict, p, keys: tuple) -> None:
    for k in keys:
        if k not in d:
            _fail(p, f"the required key {k!r} is missing")


def _closed(d: dict, p, keys: tuple) -> None:
    other = next(k for k in d if k not in keys)
    _fail(p, f"the key {other!r} is not one of this object's (the schema closes it)")


def _dependent(d: dict, p, key: str, deps: tuple) -> None:
    if key in d:
        for k in deps:
            if k not in d:
                _fail(p, f"{key!r} is present, so {k!r} must be too")


def _if_then_else(d: dict, p, cond: dict, then: dict | None, other: dict | None) -> None:
    """The one conditional the schema uses: if a key has a constant, then/else bound the
    length of an array."""
    holds = all(d.get(k) == s.get("const") for k, s in cond.get("properties", {}).items())
    branch = then if holds else other
    for k, s in ((branch or {}).get("properties") or {}).items():
        v = d.get(k)
        if isinstance(v, list):
            if "maxItems" in s and len(v) > s["maxItems"]:
                _fail((p, k), f"at most {s['maxItems']} item(s) here, got {len(v)}")
            if "minItems" in s and len(v) < s["minItems"]:
                _fail((p, k), f"at least {s['minItems']} item(s) here, got {len(v)}")


def _opt(d: dict, key: str, p, conv):
    v = d.get(key, _ABSENT)
    return None if v is _ABSENT else conv(v, (p, key))


def _any(v, p):
    return v


def _nullable(conv):
    def check(v, p):
        return None if v is None else conv(v, p)
    return check


def _enum_fn(values: tuple):
    def check(v, p):
        if isinstance(v, bool) or v not in values:
            _fail(p, f"expected one of {', '.join('null' if x is None else x for x in values)}, "
                     f"got {_show(v)}")
        return v
    return check


def _const_fn(value):
    def check(v, p):
        if v != value:
            _fail(p, f"expected {value!r}, got {_show(v)}")
        return v
    return check


def _scalar_fn(kinds: tuple, minimum=None, maximum=None, minLength=None,  # noqa: N803
               pattern=None):
    """A check of a JSON scalar of one of `kinds`, with the schema's bounds."""
    types = frozenset(t for k in kinds for t in _TYPES[k])
    expected = " or ".join(_KIND[k] for k in kinds)
    bounded = minimum is not None or maximum is not None
    regex = re.compile(pattern) if pattern is not None else None

    def check(v, p):
        t = type(v)
        if t not in types:
            _fail(p, f"expected {expected}, got {_show(v)}")
        if bounded and (t is int or t is float):
            if minimum is not None and v < minimum:
                _fail(p, f"expected at least {minimum}, got {_show(v)}")
            if maximum is not None and v > maximum:
                _fail(p, f"expected at most {maximum}, got {_show(v)}")
        elif t is str:
            if minLength is not None and len(v) < minLength:
                _fail(p, f"expected at least {minLength} character(s), got {_show(v)}")
            if regex is not None and not regex.search(v):
                _fail(p, f"{_show(v)} does not match {pattern}")
        return v
    return check


def _array_fn(conv, min_items=None, max_items=None):
    def check(v, p) -> tuple:
        if type(v) is not list:
            _fail(p, f"expected an array, got {_show(v)}")
        if min_items is not None and len(v) < min_items:
            _fail(p, f"expected at least {min_items} item(s), got {len(v)}")
        if max_items is not None and len(v) > max_items:
            _fail(p, f"expected at most {max_items} item(s), got {len(v)}")
        return tuple([conv(x, (p, i)) for i, x in enumerate(v)])
    return check


def _json_array(v, p) -> tuple:
    """An array the schema leaves open (shapes' dims, the memory timeline): kept as JSON."""
    if type(v) is not list:
        _fail(p, f"expected an array, got {_show(v)}")
    return tuple(v)


def _json_object_fn(value_kinds: tuple | None):
    """An object the schema leaves open (a finding's evidence, the decision): a dict."""
    types = None if value_kinds is None else frozenset(t for k in value_kinds
                                                       for t in _TYPES[k])

    def check(v, p) -> dict:
        if type(v) is not dict:
            _fail(p, f"expected an object, got {_show(v)}")
        if types is not None:
            for k, x in v.items():
                if type(x) not in types:
                    _fail((p, k), f"expected {' or '.join(_KIND[t] for t in value_kinds)}, "
                                  f"got {_show(x)}")
        return v
    return check


def _map_fn(conv):
    """A map of names to declared objects (a mode's step split, by mode): a dict of them."""
    def check(v, p) -> dict:
        if type(v) is not dict:
            _fail(p, f"expected an object, got {_show(v)}")
        return {k: conv(x, (p, k)) for k, x in v.items()}
    return check


class _Record:
    """The base of model.py's classes: frozen, slotted, equal when of one class with
    equal fields, shown with its fields, as @dataclass(frozen=True, slots=True) makes
    them (key_order neither compared nor shown). _FIELDS: the fields compared and
    shown, in __init__'s order."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def __setattr__(self, name, value):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}("
                + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")")

    def __getstate__(self):
        return [getattr(self, f) for f in self.__slots__]

    def __setstate__(self, state):
        for f, v in zip(self.__slots__, state, strict=True):
            object.__setattr__(self, f, v)

    def replace(self, **changes):
        """A copy with `changes` (dataclasses.replace)."""
        values = {f: getattr(self, f) for f in self.__slots__}
        unknown = changes.keys() - values.keys()
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        return type(self)(**{**values, **changes})


def _plain(v):
    if isinstance(v, _Record):
        return _to_json(v)
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, dict):  # an open object, or a map of model objects
        return {k: _plain(x) for k, x in v.items()}
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
