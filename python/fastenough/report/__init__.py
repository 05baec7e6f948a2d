"""The typed fastenough.report/1 document: `load(json) -> Report`, validated once.

model.py is generated from python/fastenough/schema/report.schema.json by
scripts/gen_report_model.py (never edit it by hand); load.py reads a document into it.
"""

from fastenough.report.load import load
from fastenough.report.model import Report

__all__ = ["Report", "load"]
