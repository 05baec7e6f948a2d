"""The C++ statistics as Python sees them (values computed by hand)."""

from __future__ import annotations

import math

from fastenough import _core
from fastenough.ab.verdict import decide


def test_paired_ratio_by_hand():
    # Pair ratios e^0.1, e^0.2, e^0.3: mean log 0.2, sd 0.1, t(2 dof, 95%) 4.302653,
    # half width 4.302653 * 0.1 / sqrt(3) = 0.248414.
    a = [1.0, 2.0, 4.0]
    b = [math.exp(0.1), 2 * math.exp(0.2), 4 * math.exp(0.3)]
    r = _core.paired_ratio(a, b, 0.95)
    assert r["pairs"] == 3 and r["method"] == "t interval of the paired log ratios"
    assert math.isclose(r["ratio"], math.exp(0.2))
    assert math.isclose(r["low"], math.exp(0.2 - 0.248414), rel_tol=1e-5)
    assert math.isclose(r["high"], math.exp(0.2 + 0.248414), rel_tol=1e-5)
    one = _core.paired_ratio([2.0], [3.0])
    assert one["ratio"] == 1.5 and math.isnan(one["low"]) and math.isnan(one["high"])
    assert math.isnan(_core.paired_ratio([], [])["ratio"])
    assert _core.median([3.0, 1.0, 2.0, 10.0]) == 2.5


def test_four_pairs_leaning_one_way_by_chance_are_not_a_difference():
    # Identical commands on a noisy machine: all 4 pairs (the default --rounds 2)
    # happen to have B slower, by 1 to 9%, which for identical commands happens
    # in 2 runs out of 16. The geometric mean is 0.952; the t interval with 3
    # degrees of freedom, [0.898, 1.010], holds 1. (The percentile bootstrap it
    # replaced put every resample below 1 here, [0.91, 0.99]: "B slower".)
    a = [100.0, 100.0, 100.0, 100.0]
    b = [99.0, 97.0, 94.0, 91.0]
    v = decide(a, b, protocol_changed=False, outputs=None)
    assert v.pairs == 4 and math.isclose(v.ratio, 0.952016, rel_tol=1e-5)
    assert math.isclose(v.low, 0.897760, rel_tol=1e-5) and math.isclose(v.high, 1.009550,
                                                                           rel_tol=1e-5)
    assert v.speed == "no difference shown", v
    # The same noise around a 15% speed-up is claimed: [1.032, 1.161].
    fast = decide(a, [x * 1.15 for x in b], protocol_changed=False, outputs=None)
    assert fast.low > 1.03 and fast.speed == "B faster", fast


def test_summarize_quantile_rounds_agree_and_knee_by_hand():
    # Sorted {1, 2, 3, 4, 100}: q1 2, median 3, q3 4, MAD 1 (deviations {0,1,1,2,97}).
    s = _core.summarize([3.0, 100.0, 1.0, 4.0, 2.0])
    assert s == {"count": 5, "median": 3.0, "q1": 2.0, "q3": 4.0, "iqr": 2.0, "mad": 1.0,
                 "min": 1.0, "max": 100.0}
    assert _core.summarize([])["count"] == 0 and math.isnan(_core.summarize([])["median"])
    assert _core.quantile([40.0, 10.0, 30.0, 20.0], 0.9) == 37.0
    assert _core.rounds_agree(100.0, 105.0, 0.05) and not _core.rounds_agree(100.0, 106.0, 0.05)
    # Best 1000, floor 950: the knee is the 4th size (960).
    assert _core.knee_index([100.0, 400.0, 800.0, 960.0, 1000.0], 0.05) == 3
    assert _core.knee_index([], 0.05) == -1
