"""Hands `torch` to the agent right after the program has imported it, however it
was first imported.

A finder on sys.meta_path sees every import. Looking torch up is not importing
it: transformers and sentence-transformers call importlib.util.find_spec("torch")
long before `import torch`, so the finder stays in place until torch/__init__.py
has really executed (through the wrapped loader of a spec it handed out), and
every look-up gets a wrapped loader. The import statement, importlib.import_module,
runpy (`python -m`) and C extensions (PyImport_Import) all go through sys.meta_path.

Should torch still arrive without our loader (a custom importer that executes
torch/__init__.py itself), the agent attaches late when the program first calls
the fastenough API (`how` is then "late"), and its exit record says that torch
was imported but never seen, so the report cannot pass for a clean one.
"""

from __future__ import annotations

import importlib.abc
import sys


def torch_ready() -> object | None:
    """The torch module once its __init__ has finished, else None."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    spec = getattr(torch, "__spec__", None)
    if spec is not None and getattr(spec, "_initializing", False):
        return None  # torch/__init__.py is still running (it imports its submodules)
    return torch


class TorchImportWatch(importlib.abc.MetaPathFinder):
    def __init__(self, on_import) -> None:
        self._on_import = on_import
        self._looking = False  # our own look-up through the other finders
        self.done = False
        self.how: str | None = None  # "import" or "late"

    def install(self) -> None:
        sys.meta_path.insert(0, self)

    def find_spec(self, name, path, target=None):
        if self.done:
            return None
        if name != "torch" or self._looking:
            return None
        self._looking = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
        finally:
            self._looking = False
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _AfterExecLoader(spec.loader, self)
        return spec

    def imported(self, module) -> None:
        self._hand_over(module, "import")

    def attach_late(self) -> None:
        torch = torch_ready()
        if torch is not None:
            self._hand_over(torch, "late")

    def _hand_over(self, module, how: str) -> None:
        if self.done:
            return
        self.done = True
        self.how = how
        try:  # noqa: SIM105 - contextlib costs an import at startup
            sys.meta_path.remove(self)
        except ValueError:
            pass
        self._on_import(module)


class _AfterExecLoader(importlib.abc.Loader):
    def __init__(self, loader, watch: TorchImportWatch) -> None:
        self._loader = loader
        self._watch = watch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        # Give later importers (importlib.resources, inspect) the real loader back.
        try:
            module.__loader__ = self._loader
            module.__spec__.loader = self._loader
        except (AttributeError, TypeError):
            pass
        self._watch.imported(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)
