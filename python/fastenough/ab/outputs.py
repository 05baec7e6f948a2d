"""The recorded outputs of the two sides (fastenough.record), compared item by item."""

from __future__ import annotations

from pathlib import Path


def has_outputs(run_dir: Path) -> bool:
    out = run_dir / "outputs"
    return out.is_dir() and any(out.iterdir())


def compare_outputs(a_dir: Path, b_dir: Path, **tolerances) -> dict | None:
    """The fastenough.compare/1 document of A's and B's first runs, or a short
    {"verdict": "not compared", "why": ...} when there is nothing to compare."""
    if not has_outputs(a_dir) and not has_outputs(b_dir):
        return {"verdict": "not compared", "why": "neither side recorded outputs "
                "(fastenough.record(key, value) in the program)"}
    if not (has_outputs(a_dir) and has_outputs(b_dir)):
        side = "A" if not has_outputs(a_dir) else "B"
        return {"verdict": "not compared", "why": f"side {side} recorded no outputs"}
    try:
        from fastenough.compare import compare_paths
    except ImportError:  # pragma: no cover - compare ships with the package
        return {"verdict": "not compared", "why": "fastenough.compare is not available"}
    return compare_paths(a_dir, b_dir, **tolerances)
