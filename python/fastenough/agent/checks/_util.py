"""Helpers shared by the checks: user call sites, tensor walks, the core's decisions."""

from __future__ import annotations

import json
import os
import sys
import tempfile

_OURS: list[str] = []  # fastenough's own code: never the user's line, never a library
_LIBRARIES: list[str] = []  # installed packages and the standard library
_DEMO: list[str] = []  # the bundled demo: the user's code of its runs, wherever installed


def _dirs() -> tuple[list[str], list[str]]:
    if not _OURS:
        import site
        import sysconfig

        import fastenough

        package = os.path.dirname(os.path.abspath(fastenough.__file__))
        # The bundled demo (fastenough/demo) is the user's code of its runs.
        for d in os.listdir(package):
            path = os.path.join(package, d)
            if d != "demo":
                _OURS.append(path + os.sep if os.path.isdir(path) else path)
            else:
                _DEMO.append(path + os.sep)
        libs = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib",
                                                        "platlib")}
        try:
            libs.update(site.getsitepackages())
            libs.add(site.getusersitepackages())
        except AttributeError:  # a virtualenv's old site.py
            pass
        for name in ("torch", "transformers", "accelerate"):
            mod = sys.modules.get(name)
            f = getattr(mod, "__file__", None) if mod else None
            if f:
                libs.add(os.path.dirname(os.path.dirname(os.path.abspath(f))))
        _LIBRARIES.extend(sorted(os.path.abspath(d) + os.sep for d in libs if d))
    return _OURS, _LIBRARIES


def reset_skip_dirs() -> None:
    _OURS.clear()
    _LIBRARIES.clear()
    _DEMO.clear()


def call_site() -> tuple[dict | None, str | None]:
    """The user's line of the current call, {file, line, function}: the innermost
    frame outside fastenough and outside installed libraries (torch, transformers,
    sentence-transformers, the standard library); and, when the call happened
    inside a library, that library module's name ("torch.nn.modules.transformer")."""
    ours, libraries = _dirs()
    try:
        f = sys._getframe(1)
    except ValueError:
        return None, None
    inside = None
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith("<") or any(fn.startswith(d) for d in ours):
            f = f.f_back
            continue
        if any(fn.startswith(d) for d in libraries) and not any(fn.startswith(d) for d in _DEMO):
            if inside is None:
                inside = f.f_globals.get("__name__")
            f = f.f_back
            continue
        return {"file": fn, "line": f.f_lineno, "function": f.f_code.co_name}, inside
    return None, inside


def user_site(depth: int = 1) -> dict | None:
    """{file, line, function} of the user's line (call_site); depth is kept for callers."""
    return call_site()[0]


def inside_a_transform(torch) -> bool:
    """True while a torch.func transform runs (grad, vjp, jacrev, vmap): the
    model's forward then sees functorch's wrapper tensors, which have no
    storage to read ("Cannot access storage of TensorWrapper") and whose graph
    is the transform's, so no check examines such a forward (a training loop
    of torch.func.grad over functional_call switched every check off at its
    first forward)."""
    try:
        return torch._C._functorch.maybe_current_level() is not None
    except Exception:  # noqa: BLE001 - a torch without functorch: no transform
        return False


def first_tensor(obj, torch, depth: int = 0):
    if isinstance(obj, torch.Tensor):
        return obj
    if depth > 3:
        return None
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        for o in obj[:8]:
            t = first_tensor(o, torch, depth + 1)
            if t is not None:
                return t
    return None


def tensors_in(obj, torch, depth: int = 0, out: list | None = None) -> list:
    """Every tensor reachable in a few levels of tuples/lists/dicts/plain objects
    (e.g. a Hugging Face DynamicCache: cache.layers[i].keys / .values)."""
    if out is None:
        out = []
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif depth < 5:
        if isinstance(obj, dict):
            for v in obj.values():
                tensors_in(v, torch, depth + 1, out)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                tensors_in(v, torch, depth + 1, out)
        elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
            for v in vars(obj).values():
                tensors_in(v, torch, depth + 1, out)
    return out


def storage_bytes(tensors) -> int:
    seen, total = set(), 0
    for t in tensors:
        try:
            s = t.untyped_storage()
            key = (str(t.device), s.data_ptr())
            if key not in seen:
                seen.add(key)
                total += s.nbytes()
        except Exception:  # noqa: BLE001 - sparse, meta or fake tensors
            continue
    return total


def median(xs: list) -> float | None:
    """The project's one median (_core.median: stats/quantile.h); None for none."""
    if not xs:
        return None
    from fastenough import _core

    return _core.median([float(x) for x in xs])


def decide(code: str, numbers: dict, texts: dict | None = None, where: list | None = None):
    """The verdict and the saving come from the C++ core (fastenough._core)."""
    from fastenough import _core

    nums = {k: float(v) for k, v in numbers.items() if v is not None}
    txt = {k: str(v) for k, v in (texts or {}).items() if v}
    return _core.check_verdict(code, nums, txt, [w for w in (where or []) if w])


def write_json_atomic(path: str, doc) -> None:
    d = os.path.dirname(path) or "."
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, default=str)
        os.replace(tmp, path)
    except BaseException:
        try:  # noqa: SIM105
            os.unlink(tmp)
        except OSError:
            pass
        raise
