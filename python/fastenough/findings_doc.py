"""The finding catalog's text (docs/findings.md), read by `fastenough explain`.

One source of truth: docs/findings.md in the repository. A wheel carries it as
fastenough/docs/findings.md (installed by bindings/CMakeLists.txt); a checkout
(or an editable install, whose package is the source tree) reads the
repository's file. Sections are `## <code>` headings; the first paragraph of a
section starts with the code's title in bold:

    ## sync-in-loop

    **Host waits for the device inside the step loop** · source: trace, agent · ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from fastenough.errors import FastenoughError

_HEADING = re.compile(r"^## ([a-z0-9]+(?:-[a-z0-9]+)*)\s*$", re.MULTILINE)
_TITLE = re.compile(r"^\*\*(.+?)\*\*")


@dataclass(frozen=True)
class Section:
    code: str
    title: str  # the catalog title, from the bold start of the section
    text: str  # the section's Markdown, heading included


def catalog_path() -> Path:
    """Where findings.md is: in a checkout (or an editable install, whose package
    is the source tree) the repository's own file, so an edit shows at once;
    otherwise the copy installed in the package."""
    root = Path(__file__).resolve().parents[2]
    repo = root / "docs" / "findings.md"
    if repo.is_file() and (root / "pyproject.toml").is_file():
        return repo
    packaged = resources.files("fastenough").joinpath("docs", "findings.md")
    if packaged.is_file():
        return Path(str(packaged))
    raise FastenoughError(
        f"the finding catalog is missing: neither {packaged} nor {repo} exists "
        "(a broken install: reinstall fastenough)")


def read_sections(path: Path | None = None) -> dict[str, Section]:
    """code -> Section, in the order of the file."""
    text = (path or catalog_path()).read_text(encoding="utf-8")
    heads = list(_HEADING.finditer(text))
    out: dict[str, Section] = {}
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[m.start():end].rstrip() + "\n"
        first = body.split("\n", 1)[1].lstrip()
        t = _TITLE.match(first)
        out[m.group(1)] = Section(m.group(1), t.group(1) if t else "", body)
    return out
