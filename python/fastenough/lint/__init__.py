"""`fastenough lint`: performance anti-patterns found in Python source, before anything runs.

The user's code is parsed, never imported or run. The parser and the rules are
C++ (cpp/fastenough/pysrc/ and cpp/fastenough/lint/: scope and loop tracking,
value kinds, one file per rule family, suppression comments, the threaded
driver); this package is the Python side:

  walker.py     the .py files under the paths; lint them on threads in the core
  check.py      one file's text (tests, and the cross-reference of `fastenough run`)
  rules.py      rule and code tables from the core, for --explain and SARIF
  finding.py    LintFinding and FileError
  crossref.py   runtime findings that lint also sees in source
  formats/      human, json, sarif output
"""

from fastenough.lint.finding import FileError, LintFinding
from fastenough.lint.walker import LintResult, lint_paths

__all__ = ["FileError", "LintFinding", "LintResult", "lint_paths"]
