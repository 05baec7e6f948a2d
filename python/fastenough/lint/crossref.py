"""`fastenough run` meets lint: which runtime findings the source also shows.

After a run's report is assembled, the Python files it points at (the `where`
of its findings, and the script or module of the command) are linted. A runtime
finding with the same code as a lint finding at the same file:line (for the
agent checks that point at the model's forward call: in the same function) gets
`"also_in_source": [{"file", "line", "rule"}]`; lint findings that no runtime
finding confirmed go to `report["lint"]["unconfirmed"]`, listed apart and never
merged into the ranked findings: the run did not measure them (the code did not
run, ran too rarely to matter, or the runtime has no check for that code).

report["lint"] (added to fastenough.report/1; absent when nothing was linted):
  {"files": [path...], "confirmed": int,
   "unconfirmed": [{"file", "line", "col", "code", "rule", "message"}],
   "errors": [{"path", "line", "message"}]}
"""

from __future__ import annotations

import os
from pathlib import Path

from fastenough.lint.walker import lint_files

# Agent checks that report the model's forward call as their `where`, while lint
# points at the keyword or the log_softmax in the same function: for these codes
# the same function of the same file is a match too.
_FORWARD_CODES = {"autograd-in-eval", "train-mode-in-eval", "kv-cache-in-scoring",
                  "unused-outputs", "full-vocab-logits"}

# Runtime finding files under these are libraries, not the user's source.
_LIBRARY_MARKERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _command_sources(command: list[str], cwd: Path) -> list[Path]:
    """The script of `python x.py ...` or the module file of `python -m a.b` under cwd."""
    out = []
    for i, arg in enumerate(command):
        if arg.endswith(".py"):
            out.append(cwd / arg)
        elif arg == "-m" and i + 1 < len(command):
            rel = Path(*command[i + 1].split("."))
            out += [cwd / "python" / rel.with_suffix(".py"), cwd / rel.with_suffix(".py"),
                    cwd / rel / "__main__.py"]
    return out


def _runtime_sites(report: dict) -> list[tuple[dict, str, int, str]]:
    sites = []
    for f in report.get("findings") or []:
        for w in f.get("where") or []:
            if isinstance(w, dict) and w.get("file") and w.get("line"):
                sites.append((f, str(w["file"]), int(w["line"]), str(w.get("function") or "")))
    return sites


def cross_reference(report: dict, cwd: str, command: list[str]) -> dict:
    """Annotate `report` in place (see the module docstring) and return it."""
    base = Path(cwd)
    sites = _runtime_sites(report)
    candidates = [Path(file) if os.path.isabs(file) else base / file for _, file, _, _ in sites]
    candidates += _command_sources(command, base)
    files: list[str] = []
    for p in candidates:
        p = p.resolve()
        s = str(p)
        if p.suffix == ".py" and p.is_file() and s not in files and not any(
                m in s for m in _LIBRARY_MARKERS):
            files.append(s)
    if not files:
        return report
    linted = lint_files(sorted(files), None)
    findings, errors = linted.findings, linted.errors
    by_place: dict[tuple[str, str, int], list] = {}
    by_function: dict[tuple[str, str, str], list] = {}
    for lf in findings:
        path = str(Path(lf.path).resolve())
        by_place.setdefault((lf.code, path, lf.line), []).append(lf)
        if lf.code in _FORWARD_CODES and lf.function:
            by_function.setdefault((lf.code, path, lf.function), []).append(lf)
    confirmed: set = set()
    for f, file, line, function in sites:
        path = str((Path(file) if os.path.isabs(file) else base / file).resolve())
        code = f.get("code")
        matches = by_place.get((code, path, line)) or by_function.get((code, path, function), [])
        for lf in matches:
            confirmed.add(lf)
            also = f.setdefault("also_in_source", [])
            entry = {"file": lf.path, "line": lf.line, "rule": lf.rule}
            if entry not in also:
                also.append(entry)
    report["lint"] = {
        "files": sorted(files),
        "confirmed": len(confirmed),
        "unconfirmed": [{"file": lf.path, "line": lf.line, "col": lf.col, "code": lf.code,
                         "rule": lf.rule, "message": lf.message}
                        for lf in findings if lf not in confirmed],
        "errors": [e.to_dict() for e in errors],
    }
    return report
