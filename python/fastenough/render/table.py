"""A table as plain rows (title, header, rows): the one shape every renderer
(terminal, Markdown, HTML) formats, so that each shows the same content."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    right: set[int] = field(default_factory=set)  # right-aligned (numeric) columns
