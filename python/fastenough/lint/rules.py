"""The lint rules and codes, as the C++ core defines them (cpp/fastenough/lint/rules/).

The rules themselves run in C++ (one file per family under
cpp/fastenough/lint/rules/); this module gives the CLI, --explain and the SARIF
writer their names, codes and texts. Codes are stable: `fastenough run` reports
the codes marked runtime=True from measurements.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastenough import _core


@dataclass(frozen=True)
class Rule:
    code: str  # the finding code; several rules may share one
    name: str  # this rule, unique: "sync-method-in-loop"
    summary: str  # one line for --explain listings and SARIF shortDescription
    explain: str  # the why and the fix, for `fastenough lint --explain CODE`


@dataclass(frozen=True)
class Code:
    """A finding code as lint knows it: title and whether runtime findings share it."""

    code: str
    title: str
    runtime: bool  # `fastenough run` reports the same code from measurements


ALL_RULES: list[Rule] = [Rule(*r) for r in _core.lint_rules()]
CODES: dict[str, Code] = {c[0]: Code(*c) for c in _core.lint_codes()}


def rules_for(code: str) -> list[Rule]:
    return [r for r in ALL_RULES if r.code == code]
