"""The one formatting of durations, bytes and shares (cpp/fastenough/util/
units.h, called by render/units.py): hand-computed cases at the unit
boundaries, and the core's finding texts against what the renderers print for
the same value."""

from __future__ import annotations

import math
import random

import pytest

from fastenough import _core
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_share

NAN = float("nan")
INF = float("inf")


@pytest.mark.parametrize("ns, text", [
    (0, "0 ns"),
    (512, "512 ns"),
    (999.4, "999 ns"),
    (999.5, "1.0 µs"),          # rounds to 1000 ns: the next unit
    (1_000, "1.0 µs"),
    (500_000, "500.0 µs"),
    (999_940, "999.9 µs"),
    (999_950, "1.00 ms"),       # not "1000.0 µs"
    (1_234_567, "1.23 ms"),
    (999_994_000, "999.99 ms"),
    (999_996_000, "1.00 s"),    # not "1000.00 ms"
    (1_000_000_000, "1.00 s"),
    (59_994_000_000, "59.99 s"),
    (59_996_000_000, "1.0 min"),  # not "60.00 s"
    (150e9, "2.5 min"),
    (-1_500_000, "-1.50 ms"),
    (-0.3, "0 ns"),             # prints as zero: no sign
    (None, "-"), (NAN, "-"), (INF, "-"), (-INF, "-"),
])
def test_durations(ns, text):
    assert fmt_ns(ns) == text


@pytest.mark.parametrize("b, text", [
    (0, "0 B"),
    (1023, "1023 B"),
    (1024, "1.0 KiB"),
    (1536, "1.5 KiB"),
    (1_048_575, "1.0 MiB"),     # 1023.999 KiB: not "1024.0 KiB"
    (1 << 20, "1.0 MiB"),
    (80 << 30, "80.0 GiB"),
    (3 << 40, "3.0 TiB"),
    (-1, "-"), (None, "-"), (NAN, "-"), (INF, "-"),
])
def test_bytes(b, text):
    assert fmt_bytes(b) == text


@pytest.mark.parametrize("x, text", [
    (0, "0.0%"), (-0.0, "0.0%"), (0.312, "31.2%"), (0.0004, "0.0%"), (1, "100.0%"),
    (1.5, "150.0%"), (-0.1, "-"), (None, "-"), (NAN, "-"), (INF, "-"),
])
def test_shares(x, text):
    assert fmt_share(x) == text


def _rule(ns: float) -> str:
    """The documented rule (util/units.h) written out again: the largest unit
    the printed value reaches, 0/1/2/2/1 decimals for ns/µs/ms/s/min."""
    units = [(1, 0, "ns", 1000), (1e3, 1, "µs", 1000), (1e6, 2, "ms", 1000),
             (1e9, 2, "s", 60), (60e9, 1, "min", math.inf)]
    for unit in units:
        scale, decimals, name, next_at = unit
        text = f"{ns / scale:.{decimals}f}"
        if abs(float(text)) < next_at:
            break
    if float(text) == 0:
        text = text.lstrip("-")
    return f"{text} {unit[2]}"


def test_the_core_follows_the_documented_rule():
    rng = random.Random(35)
    values = [rng.choice([1, -1]) * 10 ** rng.uniform(-1, 13) for _ in range(5000)]
    values += [k * 10 ** e - d for k in (1, 6) for e in range(0, 13) for d in (0, 0.5, 1)]
    for v in values:
        assert _core.format_duration(v) == _rule(v), v


def test_the_cores_finding_text_and_the_renderers_say_the_same_value():
    # 999.95 us a step was "1000.0 us" in the core's text and "1000.0 µs" in
    # the renderers (and "1.0 ms" in the core's step titles) before one rule.
    saving = 999_950.0
    d = _core.decide({"steady_step_ns": 2e6, "steps_per_run": 1000}, {"remaining_runs": 5},
                     [{"code": "sync-in-loop", "saving_per_step_ns": saving}])
    (fix,) = d["fixes"]
    text = fix["arithmetic"]
    assert f"5 runs x {fmt_ns(saving)}/step x 1000 steps" in text, text
    assert fmt_ns(saving) == "1.00 ms"
    assert f"({fmt_share(fix['share_of_run'])} of a {fmt_ns(d['run_ns'])} run" in text, text


def test_a_trace_findings_title_and_its_evidence_render_alike():
    # low-occupancy titles its hot kernel's share; the renderers print the
    # same evidence value with fmt_share.
    import json
    import pathlib

    trace = pathlib.Path(__file__).parents[2] / "data" / "detectors" / "waste_trace.json"
    report = json.loads(_core.analyze_to_json([str(trace)], None, 0, {}))
    found = [f for f in report["findings"] if f["code"] == "low-occupancy"]
    assert found, [f["code"] for f in report["findings"]]
    for f in found:
        assert f"({fmt_share(f['evidence']['share_of_kernel_time'])} of kernel time)" in f["title"]
