"""The typed fastenough.report/1 document: `load(json) -> Report`, validated once.

model.py is generated from python/fastenough/schema/report.schema.json by
scripts/gen_report_model.py (never edit it by hand); load.py reads a document into it.
as_json(value) is a typed value as the JSON it came from (an object, a list, a number).
"""

from fastenough.report._validate import _plain as as_json
from fastenough.report.load import load
from fastenough.report.model import Report

__all__ = ["Report", "as_json", "load"]
