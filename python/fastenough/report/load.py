"""Read a fastenough.report/1 document once, into the typed model (model.py, generated
from the schema by scripts/gen_report_model.py). Every consumer of a report (the MCP
answers, decide, diff, the gate, ab, the view builder) takes the Report this returns
instead of indexing the JSON."""

from __future__ import annotations

import json

from fastenough.errors import BadInputError, MalformedReportError
from fastenough.report._validate import _show
from fastenough.report.model import SCHEMA_ID, Report


def load(document: str | bytes | dict, source: str | None = None) -> Report:
    """The report in `document` (its JSON text, or the dict json.loads made of it),
    validated against the schema once. A document that does not follow the schema raises
    MalformedReportError (a BadInputError: exit 2) naming the JSON path of the first value
    wrong; text that is not JSON raises BadInputError. `source` (the file, shown as the
    user wrote it) starts the message."""
    if isinstance(document, (str, bytes, bytearray)):
        try:
            document = json.loads(document)
        except (ValueError, RecursionError) as e:
            where = f"{source}: " if source else ""
            raise BadInputError(f"{where}not a fastenough report: not JSON ({e})") from None
    if not isinstance(document, dict):
        raise MalformedReportError("report", "expected an object", source)
    if document.get("schema") != SCHEMA_ID:
        raise MalformedReportError("report.schema", f"expected {SCHEMA_ID!r}, got "
                                   f"{_show(document.get('schema'))}", source)
    try:
        return Report._load(document, "report")
    except MalformedReportError as e:
        if source is None:
            raise
        raise MalformedReportError(e.path, e.what, source) from None
    except RecursionError:
        raise MalformedReportError("report", "nested too deeply", source) from None
