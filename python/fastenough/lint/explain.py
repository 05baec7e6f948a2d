"""The text of `fastenough lint --explain CODE`: a code's rules and what each looks for."""

from __future__ import annotations

import textwrap

from fastenough.errors import UsageError
from fastenough.lint.rules import CODES, rules_for


def explain_text(code: str) -> str:
    """A lint code's rules and what each looks for (`lint --explain CODE`, "all" for
    every code), as `fastenough lint --explain` prints it and the MCP `explain` tool
    answers for a lint-only code."""
    if code == "all":
        lines = []
        for c, meta in CODES.items():
            lines.append(f"{c:<22} {meta.title}")
            lines += [f"{'':<22}   {r.name}: {r.summary}" for r in rules_for(c)]
        return "\n".join(lines) + "\n"
    if code not in CODES:
        raise UsageError(f"--explain: unknown code {code} (known: {', '.join(sorted(CODES))}; "
                         "or 'all')")
    meta = CODES[code]
    rules = rules_for(code)
    out = [f"{code}: {meta.title}", ""]
    out.append("Rules:")
    out += [f"  {r.name}: {r.summary}" for r in rules]
    for text in dict.fromkeys(r.explain for r in rules):
        out += ["", textwrap.dedent(text).strip()]
    if meta.runtime:
        out += ["", textwrap.fill(
            f"The runtime side: `fastenough run` reports {code} from measurements of the "
            f"running program; `fastenough explain {code}` describes that side.", 79)]
    else:
        out += ["", "Lint only: no runtime finding has this code."]
    return "\n".join(out) + "\n"
