"""Parse an HTML report with the standard library and check it is well formed:
every element closed in order, ids unique, and nothing that would make the
browser ask the network for anything."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "link", "br", "img", "hr", "input", "col", "source", "wbr",
        # SVG elements written self-closing (<line .../>) arrive as startendtag.
        }


@dataclass
class Element:
    tag: str
    attrs: dict
    text: str = ""
    children: list = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]
        self.errors: list[str] = []
        self.all: list[Element] = []

    def handle_starttag(self, tag, attrs):
        e = Element(tag, dict(attrs))
        self.stack[-1].children.append(e)
        self.all.append(e)
        if tag not in VOID:
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        e = Element(tag, dict(attrs))
        self.stack[-1].children.append(e)
        self.all.append(e)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.stack[-1].tag != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1].tag}>")
            # Recover: pop to the matching element when there is one.
            for i in range(len(self.stack) - 1, 0, -1):
                if self.stack[i].tag == tag:
                    del self.stack[i:]
                    return
            return
        self.stack.pop()

    def handle_data(self, data):
        for e in self.stack[1:]:
            e.text += data


@dataclass
class Page:
    elements: list[Element]
    errors: list[str]

    def find(self, tag: str, **attrs) -> list[Element]:
        out = []
        for e in self.elements:
            if e.tag != tag:
                continue
            if all(attrs_match(e.attrs.get(k.rstrip("_")), v) for k, v in attrs.items()):
                out.append(e)
        return out

    def by_id(self, id_: str) -> Element:
        (e,) = [e for e in self.elements if e.attrs.get("id") == id_]
        return e


def attrs_match(value, want) -> bool:
    if value is None:
        return False
    if want is True:
        return True
    return want in value.split() if isinstance(want, str) and " " not in want else value == want


def parse(text: str) -> Page:
    p = _Parser()
    p.feed(text)
    p.close()
    errors = list(p.errors)
    if len(p.stack) > 1:
        errors.append("unclosed: " + " > ".join(e.tag for e in p.stack[1:]))
    ids = [e.attrs["id"] for e in p.all if "id" in e.attrs]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        errors.append(f"duplicate ids: {sorted(dupes)}")
    return Page(p.all, errors)


_URL_ATTRS = ("src", "href", "xlink:href", "action", "poster", "data")


def external_references(text: str, page: Page) -> list[str]:
    """Anything that would load from elsewhere: URL attributes, CSS url()/@import, scripts."""
    out = []
    for e in page.elements:
        if e.tag == "script":
            out.append("<script>")
        for a in _URL_ATTRS:
            v = e.attrs.get(a)
            if v and not v.startswith(("#", "data:")):
                out.append(f"<{e.tag} {a}={v}>")
    out += re.findall(r"url\((?!['\"]?(?:data:|#))[^)]*\)", text)
    out += re.findall(r"@import[^;]*;", text)
    return out
