"""`fastenough mcp`: the four verbs for coding agents, as an MCP server over stdio.

The server needs the `mcp` package (the optional extra `fastenough[agent]`); it
is imported only here, only when the server starts. `--skill` prints the method
as a skill document and needs nothing extra.
"""

from __future__ import annotations

import argparse
import sys

from fastenough.errors import UsageError

HELP = "serve the verbs to coding agents over MCP (stdio); --skill prints the method for them"
DESCRIPTION = """\
Serve fastenough to a coding agent as an MCP server over stdio: the tools run,
analyze, report, ab, compare, diff, decide, lint and explain, each answering
with the measurement status first, then the findings ranked (verdict,
location, saving, action), then the key figures, bounded in size, with the
path of the full JSON. Long calls send progress notifications and can be
cancelled: a cancelled run ends the program and keeps what was measured.

run and ab run the agent's command with your rights, without a sandbox: it can
do anything you can (they are annotated as destructive, for clients that ask
before such calls). Every argument is data, never an option; the read-only
tools write nothing in your tree (their files go to ~/.cache/fastenough/mcp,
or FASTENOUGH_MCP_SCRATCH).

A call runs only the command it was given, in the directory it names, under
a time limit; the program's output comes back as a bounded tail; the CLI's
errors (bad input, a failed command, an incomplete measurement, the time
limit) come back as tool errors and the server keeps serving.

The server needs the `mcp` package:  pip install "fastenough[agent]"

Register it with an MCP client as the command `fastenough mcp` (see
docs/agents.md), e.g. in a client's JSON configuration:
  {"mcpServers": {"fastenough": {"command": "fastenough", "args": ["mcp"]}}}

examples:
  fastenough mcp                 serve over stdio (started by the MCP client)
  fastenough mcp --skill         print the method as a skill document
  fastenough mcp --skill > .claude/skills/fastenough/SKILL.md

exit status: 0 when the client closed the connection, 128 + N when signal N
(SIGTERM, SIGHUP, SIGINT) ended it after stopping the calls under way, 2 when
the `mcp` package is missing or too old.
"""

MCP_REQUIREMENT = "mcp>=2.3,<3"
INSTALL_HINT = ('the MCP server needs the "mcp" package (MCP Python SDK, version 2): '
                'pip install "fastenough[agent]"  (or: pip install "mcp>=2.3,<3")')


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--skill", action="store_true",
                   help="print the skill document (the method, for agents) and exit")
    p.set_defaults(func=run)


def mcp_available() -> str | None:
    """None when a usable `mcp` (2.x) can be imported, else why not."""
    try:
        import mcp.server.mcpserver  # noqa: F401 - the server's own import, checked first
    except ImportError as e:
        return f"it cannot be imported ({e})"
    try:
        from importlib.metadata import version

        v = version("mcp")
    except Exception:  # noqa: BLE001 - no metadata: the import above is what counts
        return None
    if v.split(".")[0] != "2":
        return f"version {v} is installed"
    return None


def run(args: argparse.Namespace) -> int:
    if args.skill:
        from fastenough.mcp import skill_text

        sys.stdout.write(skill_text())
        return 0
    why = mcp_available()
    if why is not None:
        raise UsageError(f"{INSTALL_HINT}; {why}")
    from fastenough.cli.main import build_parser
    from fastenough.mcp.options import verb_parsers
    from fastenough.mcp.server import serve

    # The tools' options are the verbs' own: their parsers go down with the server.
    return serve(verb_parsers(build_parser()))
