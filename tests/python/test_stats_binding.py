"""The C++ paired bootstrap, as Python sees it (values computed by hand)."""

from __future__ import annotations

import math

from fastenough import _core


def test_ratio_of_medians_and_its_interval():
    # Pairs (A, B): (1, 2), (2, 6). Medians 1.5 and 4: ratio 8/3. With two pairs
    # the resamples are {p1,p1}: 2/1, {p2,p2}: 6/2, and mixed ones: 4/1.5, so
    # the interval spans exactly [2, 3].
    r = _core.paired_ratio_of_medians([1.0, 2.0], [2.0, 6.0], seed=1, resamples=2000,
                                      confidence=0.95)
    assert r["pairs"] == 2
    assert math.isclose(r["ratio"], 8 / 3)
    assert r["low"] == 2.0 and r["high"] == 3.0


def test_reproducible_with_a_seed_and_empty_input_is_nan():
    a, b = [10.0, 11.0, 9.5, 10.2], [5.1, 5.0, 5.3, 4.9]
    r1 = _core.paired_ratio_of_medians(a, b, seed=7, resamples=500, confidence=0.95)
    r2 = _core.paired_ratio_of_medians(a, b, seed=7, resamples=500, confidence=0.95)
    assert r1 == r2
    assert r1["low"] <= r1["ratio"] <= r1["high"] < 1
    empty = _core.paired_ratio_of_medians([], [], seed=7, resamples=500, confidence=0.95)
    assert math.isnan(empty["ratio"])
    assert _core.median([3.0, 1.0, 2.0, 10.0]) == 2.5


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
