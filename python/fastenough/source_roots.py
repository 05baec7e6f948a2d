"""The directories of a Python process's sys.path, by whose code they hold:
the program's own ("user"), installed packages and the standard library
("library"), fastenough's package ("tool").

torch.profiler names the frames of a trace by their file relative to the
sys.path entry it was found under ("train.py", "torch/nn/modules/module.py",
"pytorch_lightning/loops/fit_loop.py"): the C++ core looks such a name up
under these directories to tell whose it is (cpp/fastenough/analysis/
frame_kinds.h). The agent records its process's roots (agent/<pid>.json,
"python_roots"); `fastenough analyze` passes those of its own interpreter,
the best guess for a trace recorded on the same machine.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig


def _norm(path: str) -> str:
    return os.path.abspath(path or os.getcwd())


def current_roots() -> dict[str, list[str]]:
    import fastenough

    tool = os.path.dirname(os.path.abspath(fastenough.__file__))
    library: list[str] = []
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            library.append(_norm(p))
    try:
        library += [_norm(p) for p in site.getsitepackages()]
        library.append(_norm(site.getusersitepackages()))
    except AttributeError:  # a virtualenv's old site.py
        pass
    prefixes = {_norm(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    user: list[str] = []
    for p in sys.path:
        n = _norm(p)
        if n in library or n == os.path.dirname(tool) or not os.path.isdir(n):
            continue
        # Everything else under the interpreter's own tree is its (zip files,
        # lib-dynload): a library too.
        if any(n == q or n.startswith(q + os.sep) for q in prefixes):
            library.append(n)
        else:
            user.append(n)
    cwd = _norm(os.getcwd())
    if cwd not in user and cwd not in library:
        user.append(cwd)
    # fastenough's own directory is never the user's (a checkout run from inside).
    user = [p for p in user if not (p == tool or p.startswith(tool + os.sep))]
    return {"user": _unique(user), "library": _unique(library), "tool": [tool]}


def _unique(paths: list[str]) -> list[str]:
    seen: set[str] = set()
    return [p for p in paths if not (p in seen or seen.add(p))]
