"""Helpers shared by the checks: user call sites, tensor walks, the core's decisions."""

from __future__ import annotations

import json
import os
import sys
import tempfile

_SKIP_DIRS: list[str] = []


def _skip_dirs() -> list[str]:
    # Frames inside these packages are never "the user's line".
    if not _SKIP_DIRS:
        import fastenough

        # Only the agent's own code: the bundled demo (fastenough/demo) is user code.
        dirs = [os.path.join(os.path.dirname(os.path.abspath(fastenough.__file__)), "agent")]
        for name in ("torch", "transformers", "accelerate", "importlib", "contextlib",
                     "functools", "runpy"):
            mod = sys.modules.get(name)
            f = getattr(mod, "__file__", None) if mod else None
            if f:
                dirs.append(os.path.dirname(os.path.abspath(f)))
        _SKIP_DIRS.extend(d + os.sep for d in dirs)
    return _SKIP_DIRS


def reset_skip_dirs() -> None:
    _SKIP_DIRS.clear()


def user_site(depth: int = 1) -> dict | None:
    """{file, line, function} of the innermost frame outside torch, the agent and
    Hugging Face libraries, starting from the caller (depth is kept for callers)."""
    skip = _skip_dirs()
    try:
        f = sys._getframe(1)
    except ValueError:
        return None
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith("<") and not any(fn.startswith(d) for d in skip):
            return {"file": fn, "line": f.f_lineno, "function": f.f_code.co_name}
        f = f.f_back
    return None


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
    if not xs:
        return None
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def decide(code: str, numbers: dict, texts: dict | None = None, where: list | None = None):
    """The verdict and the saving come from the C++ core (fastenough._core)."""
    from fastenough import _core

    nums = {k: float(v) for k, v in numbers.items() if v is not None}
    txt = {k: str(v) for k, v in (texts or {}).items() if v}
    return _core.check_decide(code, nums, txt, [w for w in (where or []) if w])


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
