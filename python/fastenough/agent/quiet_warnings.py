"""Warnings raised by the agent's own calls into torch (the profiler's notice
that a schedule has no warm-up, say), kept off the program's stderr without
changing how the program's own warnings are shown.

warnings.catch_warnings() cannot be used for this: entering and leaving it
tells the warnings module that the filters changed, which clears every
module's once-per-location registry, so a warning the program had already
printed once was printed again after each of our calls (imagenet 1 -> 2, DDP
2 -> 6, Lightning 1 -> 2 under the tool). Here one "ignore" entry is put at
the front of the filter list in place and taken out again, without telling
the warnings module: an ignored warning is not recorded in any registry.

Our calls can also import modules that change the filters themselves
(torch.profiler's start imports torch._inductor, which imports sympy, which
adds a filter): in a plain run that import would not happen there. The
registries that were current before such a call are made current again
after it, so the program's warnings printed once stay printed once.
"""

from __future__ import annotations

import contextlib
import sys
import warnings

_IGNORE_ALL = ("ignore", None, Warning, None, 0)


@contextlib.contextmanager
def ignoring_warnings():
    entry = tuple(_IGNORE_ALL)  # our own object: removed by identity below
    filters = warnings.filters
    before = filters_version()
    filters.insert(0, entry)
    try:
        yield
    finally:
        for i, f in enumerate(filters):
            if f is entry:
                del filters[i]
                break
        after = filters_version()
        if before is not None and after is not None and after != before:
            _carry_registries(before, after)


def filters_version() -> int | None:
    """The warnings module's filter version. Read the only way it can be:
    warn_explicit() with a registry of our own stamps the current version into
    it before it decides anything (the warning itself is ignored: the filter
    list is consulted after that, and an "error" filter would raise, which is
    caught)."""
    registry: dict = {}
    filters = warnings.filters
    entry = ("ignore", None, Warning, None, 0)
    filters.insert(0, entry)
    try:
        warnings.warn_explicit("", UserWarning, "<fastenough>", 0, registry=registry)
    except Exception:  # noqa: BLE001 - cannot happen with the ignore entry first
        return None
    finally:
        for i, f in enumerate(filters):
            if f is entry:
                del filters[i]
                break
    version = registry.get("version")
    return version if isinstance(version, int) else None


def _carry_registries(old: int, new: int) -> None:
    for module in list(sys.modules.values()):
        registry = getattr(module, "__dict__", {}).get("__warningregistry__")
        if isinstance(registry, dict) and registry.get("version") == old:
            registry["version"] = new
