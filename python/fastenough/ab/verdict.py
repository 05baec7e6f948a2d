"""The paired ratio B/A of steady throughput, its interval, the noise check and
the verdict's words. The statistics are the C++ core's (stats/paired_ratio): the
geometric mean of the pairs' ratios and a Student-t interval over their logs,
which keeps its confidence with the 2 to 8 pairs an A B B A run gives."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fastenough._core import format_share


@dataclass
class Verdict:
    ratio: float  # geometric mean of B_i / A_i of steady throughput: > 1 means B is faster
    low: float
    high: float
    confidence: float
    pairs: int
    speed: str  # "B faster" | "B slower" | "no difference shown" | "not measured"
    text: str   # the whole verdict, protocol change and outputs included
    noise: list[str] = field(default_factory=list)
    method: str = "t interval of the paired log ratios"


def spread(values: list[float]) -> float | None:
    """(max - min) / median of one side's runs."""
    from fastenough import _core

    good = [v for v in values if v and math.isfinite(v)]
    if len(good) < 2:
        return None
    med = _core.median(good)
    return (max(good) - min(good)) / med if med else None


def decide(a: list[float], b: list[float], *, protocol_changed: bool, outputs: str | None,
           confidence: float = 0.95, basis: str = "") -> Verdict:
    """a, b: steady throughput of the runs, paired by position (A1 with B1, ...).
    outputs: the compare verdict of the recorded outputs, None when not compared.
    basis: what was compared when not the steady throughput, said after the speed
    (" on the whole run's time (...)")."""
    from fastenough import _core

    ci = _core.paired_ratio([float(x) for x in a], [float(x) for x in b], confidence)
    ratio, low, high = ci["ratio"], ci["low"], ci["high"]
    if not all(math.isfinite(x) for x in (ratio, low, high)):
        speed = "not measured"
    elif low > 1.0:
        speed = "B faster"
    elif high < 1.0:
        speed = "B slower"
    else:
        speed = "no difference shown"
    noise = []
    if math.isfinite(ratio):
        claimed = abs(ratio - 1.0)
        spreads = [spread(a), spread(b)]
        for name, s in zip("AB", spreads, strict=True):
            if s is not None and s > claimed:
                noise.append(f"the runs of {name} spread by {format_share(s)}, more than the "
                             f"difference claimed ({format_share(claimed)}): run more --rounds, "
                             "or on a quieter machine")
        # A difference smaller than the spread of both sides' own runs is not claimed,
        # even when every pair happened to lean the same way.
        if speed in ("B faster", "B slower") and all(s is not None and s > claimed
                                                     for s in spreads):
            speed = "no difference shown"
    text = speed + basis
    if speed == "no difference shown" and len(noise) == 2:
        text += " (the difference is within the spread of both sides' runs)"
    if speed in ("B faster", "B slower") and protocol_changed:
        text += ", with a protocol change"
    if outputs == "differs":
        text += "; outputs differ"
    return Verdict(ratio, low, high, ci["confidence"], ci["pairs"], speed, text, noise,
                   ci["method"])
