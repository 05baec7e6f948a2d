"""The README and docs/ link only to files of the repository (a user of the
package has nothing else), and every link and anchor resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def test_the_docs_pages_exist():
    names = {p.name for p in PAGES}
    assert {"method.md", "findings.md", "run-directory.md", "report-schema.md",
            "architecture.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_resolve_inside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "/work/shared" not in text and "shared folder" not in text
    checked = 0
    for target in LINK.findall(text):
        if re.match(r"https?://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.is_relative_to(REPO), f"{page.name}: {target} leaves the repository"
        assert dest.exists(), f"{page.name}: {target} does not exist"
        if anchor:
            assert anchor in _anchors(dest), f"{page.name}: no heading for #{anchor} in {dest.name}"
        checked += 1
    if page.name in ("README.md", "method.md", "report-schema.md"):
        assert checked > 0
