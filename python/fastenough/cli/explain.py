"""`fastenough explain [CODE]`: a finding's section of the catalog (docs/findings.md)."""

from __future__ import annotations

import argparse
import difflib
import io
import sys

from fastenough.errors import UsageError

HELP = "what a finding code means and what to do about it"

DESCRIPTION = """\
Print the catalog's section for a finding code: what it means, why it costs
time, the evidence a report shows, how to fix it (with code), how its saving is
bounded and when it is a false alarm. Without a code, list every code with its
title. The codes are those in the `code` field of each finding of a report.

Rendered as Markdown in a terminal; plain text (no colours, no escape codes,
no Markdown marks) when piped or redirected; --md prints the Markdown source.

examples:
  fastenough explain                      every code with its one-line title
  fastenough explain sync-in-loop         one finding's section
  fastenough explain padding-waste | less
  fastenough explain padding-waste --md >> notes.md
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("code", nargs="?", help="a finding code, e.g. sync-in-loop (default: list all)")
    p.add_argument("--md", action="store_true",
                   help="print the section's Markdown source (as in docs/findings.md)")
    p.set_defaults(func=run)


# Width of the plain text written to a pipe or a file.
PLAIN_WIDTH = 80


def _print_markdown(text: str, source: bool) -> None:
    if source:
        sys.stdout.write(text)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    if sys.stdout.isatty():
        Console().print(Markdown(text))
        return
    # Piped (`| less`, `> notes.txt`): the same rendering as text, without the
    # escape codes and without Markdown's marks (`**`, `##`, code fences).
    buf = io.StringIO()
    Console(file=buf, force_terminal=False, color_system=None, width=PLAIN_WIDTH,
            no_color=True, emoji=False, highlight=False).print(Markdown(text))
    lines = [line.rstrip() for line in buf.getvalue().splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    sys.stdout.write("\n".join(lines) + "\n")


def run(args: argparse.Namespace) -> int:
    from fastenough.findings_doc import read_sections

    sections = read_sections()
    if args.code is None:
        width = max(len(c) for c in sections)
        for s in sections.values():
            sys.stdout.write(f"{s.code:<{width}}  {s.title}\n")
        sys.stdout.write("\n`fastenough explain CODE` prints one code's section.\n")
        return 0
    code = args.code.strip().lower()
    if code not in sections:
        near = difflib.get_close_matches(code, list(sections), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise UsageError(f"unknown finding code {args.code!r}{hint} "
                         "(`fastenough explain` lists them all)")
    _print_markdown(sections[code].text, args.md)
    return 0
