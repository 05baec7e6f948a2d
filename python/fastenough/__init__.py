"""fastenough: measure where a PyTorch run's time goes, find the waste that can be
removed, verify that a faster path gives the same answers, and say when to stop."""

__version__ = "0.1.0"

# The in-program API (phase, step, record, protocol) loads on first use so that
# `import fastenough` stays cheap; the functions are no-ops outside `fastenough run`.
_API = ("phase", "step", "record", "protocol")
# The measurement API (python/fastenough/measure/), also loaded on first use.
_MEASURE = {
    "time": "fastenough.measure.timing",
    "sweep_batch": "fastenough.measure.sweep",
    "bucket_by_length": "fastenough.measure.buckets",
    "abba": "fastenough.measure.abba",
}


def __getattr__(name: str):
    if name in _API:
        from fastenough import api

        return getattr(api, name)
    if name in _MEASURE:
        import importlib

        return getattr(importlib.import_module(_MEASURE[name]), name)
    if name == "compare_paths":  # `fastenough compare` as a function (for `ab`, notebooks)
        from fastenough.compare import compare_paths

        return compare_paths
    raise AttributeError(f"module 'fastenough' has no attribute {name!r}")
