"""`fastenough lint`: performance anti-patterns found in Python source, before anything runs.

The user's code is parsed with `ast`, never imported. Layout:

  walker.py     files under the paths, parallel parsing, unreadable files reported
  check.py      one file: parse, run the rules, drop suppressed findings
  scope.py      where each call runs: function, loop (also through same-file calls),
                under no_grad/inference_mode or not
  kinds.py      what a name visibly holds (device tensor, CPU tensor, numpy, Python value)
  rules/        one module per family of anti-patterns; rules/__init__.py lists codes
  suppress.py   `# fastenough: ignore[code]`
  formats/      human, json, sarif output
"""

from fastenough.lint.finding import FileError, LintFinding
from fastenough.lint.walker import LintResult, lint_paths

__all__ = ["FileError", "LintFinding", "LintResult", "lint_paths"]
