"""`fastenough lint`: performance anti-patterns found in Python source, before anything runs.

The user's code is parsed, never imported or run. The parser and the rules are
C++ (cpp/fastenough/pysrc/ and cpp/fastenough/lint/: scope and loop tracking,
value kinds, one file per rule family, suppression comments, the threaded
driver); this package is the Python side:

  walker.py     the .py files under the paths; lint them on threads in the core
  check.py      one file's text (tests)
  rules.py      rule and code tables from the core, for --explain and SARIF
  explain.py    the text of --explain CODE (the CLI and the MCP explain tool)
  finding.py    LintFinding and FileError
  formats/      human, json, sarif output

Which runtime findings of `fastenough run` lint also sees in the source is the
core's (cpp/fastenough/rundir/lint_cross_reference.h): it writes the report.
"""

from fastenough.lint.finding import FileError, LintFinding
from fastenough.lint.walker import LintResult, lint_paths

__all__ = ["FileError", "LintFinding", "LintResult", "lint_paths"]
