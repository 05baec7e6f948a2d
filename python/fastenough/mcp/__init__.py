"""fastenough for coding agents: the four verbs as an MCP server (`fastenough mcp`).

The server (server.py) is the only module that imports the `mcp` package from
PyPI, an optional extra (`pip install "fastenough[agent]"`); the core CLI never
imports anything under this package except through `fastenough mcp`. The rest
is plain Python, testable without `mcp`:

  limits.py    the contract's numbers, and how text from programs and traces is
               bounded and neutralised before it reaches an agent
  calls.py     running a verb: the CLI in a subprocess, in the named directory,
               under a time limit, with progress, cancellation and typed errors
  answers.py   shaping the CLI's JSON documents (fastenough.report/1, ab/1,
               diff/1, decide/1, compare/1, lint/1) into bounded answers
  tools.py     one function per tool
  skill.md     the method as a skill (`fastenough mcp --skill`)

Analysis stays in the C++ core and the CLI: this package only runs the verbs
and shapes their answers.
"""

from __future__ import annotations

from importlib import resources


def skill_text() -> str:
    """The skill document shipped in the package (`fastenough mcp --skill`)."""
    return resources.files("fastenough.mcp").joinpath("skill.md").read_text(encoding="utf-8")
