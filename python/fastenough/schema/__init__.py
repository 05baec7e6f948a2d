"""The JSON Schema of fastenough.report/1 (report.schema.json beside this file,
shipped in the wheel; fields described in docs/report-schema.md)."""

from __future__ import annotations

import json
from importlib import resources


def report_schema() -> dict:
    """The draft 2020-12 schema every report of this version validates against."""
    text = resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)
