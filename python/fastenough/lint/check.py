"""Lint one file's text: parse, run the selected rules, drop suppressed findings."""

from __future__ import annotations

import ast
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
    except (ValueError, RecursionError, MemoryError) as e:
        return [], FileError(path, 0, f"cannot parse ({type(e).__name__}): skipped")
    lines = text.splitlines()
    try:
        ctx = ModuleContext(path, text, tree)
        found: set[LintFinding] = set()
        for rule in ALL_RULES if rules is None else rules:
            for hit in rule.check(ctx):
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
    except RecursionError:
        return [], FileError(path, 0, "nested too deeply to analyse: skipped")
    table = suppressions(lines) if "fastenough" in text else {}
    return sorted(f for f in found if not is_suppressed(table, f.line, f.code)), None
