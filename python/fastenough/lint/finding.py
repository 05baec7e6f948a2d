"""What lint reports: findings in source, and files it could not read."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, order=True)
class LintFinding:
    path: str
    line: int  # 1-based
    col: int  # 1-based, in characters
    code: str  # a finding code; shared with the runtime findings where the meaning is the same
    rule: str  # the rule within the code that matched (several rules may share a code)
    message: str
    end_line: int
    end_col: int  # 1-based, exclusive
    function: str  # enclosing function ("" at module level)
    source_line: str  # the text of `line`, without its newline

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, order=True)
class FileError:
    """A file that was skipped: not UTF-8, a syntax error, unreadable."""

    path: str
    line: int  # 0 when the problem has no line (unreadable, not UTF-8 at a byte offset)
    message: str

    def to_dict(self) -> dict:
        return asdict(self)
