"""full-vocab-logits prices the vocabulary-sized ops from every window of the
loop, not from one forward's timing (issue 37, item 2: the calibration of
savings against `fastenough ab`, bench/calibrate_savings.py)."""

from __future__ import annotations

from types import SimpleNamespace

from fastenough.agent.checks.logits import LogitsCheck


def _window(op_ns: int, read: int, steady: bool, positions: int = 64) -> dict:
    return {"positions": positions, "positions_read": read, "vocab": 8000,
            "logits_bytes": positions * 8000 * 4, "op_ns": op_ns, "proj_ns": 0,
            "steady": steady, "loop": "0:eval", "site": {"file": "workload.py", "line": 156}}


def check_with(windows: list[dict]) -> LogitsCheck:
    c = LogitsCheck(SimpleNamespace(torch=None, examined=len(windows)))
    c.windows = windows
    return c


def test_the_demos_windows_price_the_slowest_not_the_one_steady_sample():
    # The demo's first A run under ab: three windows on its first forwards and one
    # steady window, the same ops over 64 positions each, timed at 12.7, 9.0 and
    # 6.5 ms; the steady one spoke alone, and its 6.5 ms (x 56/64 unread = 5.66 ms,
    # 18% of a 31.3 ms step) was below what ab measured fixing it: 25-45% of a step.
    c = check_with([_window(12_704_885, 8, False), _window(8_970_667, 8, False),
                    _window(6_466_440, 8, True)])
    n = c.numbers()
    assert n["vocab_ops_ns_per_forward"] == 12_704_885
    assert n["probe_full_ns"] == 12_704_885
    assert n["probe_kept_ns"] == 12_704_885 // 8
    assert n["positions"] == 64 and n["positions_read"] == 8


def test_a_growing_loop_scales_the_time_per_position_to_the_chosen_window():
    # A generation loop: prefixes of 10, 40 and 80 positions, one read each. The
    # steady windows speak (40 and 80), the one that leaves the least unread is
    # the 40-position one; the most time per position (the 10-position window's
    # 2 us) is taken at its 40 positions.
    c = check_with([_window(20_000, 1, False, positions=10),
                    _window(60_000, 1, True, positions=40),
                    _window(120_000, 1, True, positions=80)])
    n = c.numbers()
    assert n["positions"] == 40
    assert n["vocab_ops_ns_per_forward"] == 80_000
    assert n["probe_kept_ns"] == 80_000 // 40
