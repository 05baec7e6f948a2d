"""Lint one file's text: parse, run the selected rules, drop suppressed findings."""

from __future__ import annotations

import ast
import re
import warnings

from fastenough.lint.finding import FileError, LintFinding
from fastenough.lint.rules import ALL_RULES
from fastenough.lint.rules.base import ModuleContext, Rule
from fastenough.lint.scope import Function
from fastenough.lint.suppress import is_suppressed, suppressions


def decode(path: str, data: bytes) -> tuple[str | None, FileError | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, FileError(path, 0, f"not UTF-8 (byte offset {e.start}): skipped")
    return text.removeprefix("\ufeff"), None


def _enclosing_function(ctx: ModuleContext, node: ast.AST) -> str:
    line = getattr(node, "lineno", 0)
    best: Function | None = None
    for fn in ctx.scope.functions:
        n = fn.node
        inside = n.lineno <= line <= (n.end_lineno or n.lineno)
        if inside and (best is None or n.lineno >= best.node.lineno):
            best = fn
    return best.name if best is not None else ""


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _start(node: ast.AST) -> tuple[int, int]:
    """Where a finding starts: for a method call `a.b(...).item()`, at `item`, so that
    the caret points at the method and the line is the method's in a chain split over
    lines (the line the interpreter reports at runtime); else the node's start."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        f = node.func
        if f.end_lineno is not None and f.end_col_offset is not None:
            return f.end_lineno, f.end_col_offset - len(f.attr.encode("utf-8"))
    return node.lineno, node.col_offset


def _char_col(line: str, byte_offset: int) -> int:
    """ast offsets count UTF-8 bytes; editors and SARIF count characters (1-based)."""
    if line.isascii():
        return byte_offset + 1
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "ignore")) + 1


def check_text(path: str, text: str, rules: list[Rule] | None = None
               ) -> tuple[list[LintFinding], FileError | None]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes: not ours to report
            tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        return [], FileError(path, e.lineno or 0,
                             f"syntax error: {e.msg}: skipped")
    except RecursionError:
        return [], FileError(path, 0, "nested too deeply to parse: skipped")
    except (ValueError, MemoryError) as e:  # ValueError: a NUL byte in the source
        return [], FileError(path, 0, f"cannot parse ({type(e).__name__}: {e}): skipped")
    # Python's own line breaks only: str.splitlines() also breaks at form feeds and
    # other separators, which would shift every line after them.
    lines = _LINE_BREAK.split(text)
    error: FileError | None = None
    try:
        ctx = ModuleContext(path, text, tree)
    except RecursionError:
        return [], FileError(path, 0, "nested too deeply to analyse: skipped")
    found: set[LintFinding] = set()
    for rule in ALL_RULES if rules is None else rules:
        try:
            hits = list(rule.check(ctx))
        except RecursionError:
            return [], FileError(path, 0, "nested too deeply to analyse: skipped")
        except Exception as e:  # noqa: BLE001 - one rule's bug must not stop 10k files
            error = error or FileError(
                path, 0, f"internal error in lint rule {rule.name} ({type(e).__name__}: {e}): "
                         "that rule skipped this file; this is a bug in fastenough")
            continue
        for hit in hits:
            node = hit.node
            line, byte_col = _start(node)
            end_line = getattr(node, "end_lineno", None) or line
            source = lines[line - 1] if 0 < line <= len(lines) else ""
            end_source = lines[end_line - 1] if 0 < end_line <= len(lines) else ""
            col = _char_col(source, byte_col)
            end_col = _char_col(end_source, getattr(node, "end_col_offset", None)
                                or byte_col)
            found.add(LintFinding(path, line, col, rule.code, rule.name, hit.message,
                                  end_line, end_col, _enclosing_function(ctx, node),
                                  source))
    table = suppressions(lines) if "fastenough" in text else {}
    return sorted(f for f in found if not is_suppressed(table, f.line, f.code)), error
