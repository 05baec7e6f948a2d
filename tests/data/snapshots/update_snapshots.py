#!/usr/bin/env python3
"""Regenerates the detector snapshots: the findings fastenough reports for the
project's waste-trace fixture and for every trace of the HTA corpus.

    python tests/data/snapshots/update_snapshots.py   # or FASTENOUGH_UPDATE_SNAPSHOTS=1 pytest

tests/python/test_detectors_snapshots.py compares against these files
exactly, so a change in what a detector reports is always a deliberate,
reviewed diff of tests/data/snapshots/*.json.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CORPUS = Path(os.environ.get("FASTENOUGH_CORPUS", REPO.parent / "shared" / "corpus" / "hta"))
FIXTURES = [REPO / "tests" / "data" / "detectors" / "waste_trace.json"]


def corpus_traces() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.name.endswith((".json", ".json.gz")))


def snapshot_name(path: Path) -> str:
    try:
        rel = "corpus__" + str(path.relative_to(CORPUS))
    except ValueError:
        rel = "fixture__" + path.name
    return rel.replace("/", "__").replace(".json.gz", "").replace(".json", "") + ".json"


def findings_of(path: Path) -> dict:
    """What the snapshot keeps: the findings (ranked) and the shape census size."""
    from fastenough import _core

    try:
        report = json.loads(_core.analyze_to_json([str(path)]))
    except Exception as e:  # a file the readers reject (e.g. an execution trace)
        message = str(e).replace(str(path), "<trace>")
        return {"error": type(e).__name__, "message": message}
    return {"findings": report["findings"], "shapes": len(report["shapes"])}


def render(obj: dict) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def all_inputs() -> list[Path]:
    return FIXTURES + corpus_traces()


def main() -> int:
    for path in all_inputs():
        out = HERE / snapshot_name(path)
        out.write_text(render(findings_of(path)), encoding="utf-8")
        print(f"wrote {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
