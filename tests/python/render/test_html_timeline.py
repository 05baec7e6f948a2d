"""The phase timeline of the HTML report labels the exit: the time from the
agent's last phase to the process's end (3.9 s of a run were left unlabelled,
issue 24, item 8)."""

from __future__ import annotations

import re

from typed_reports import Partial

from fastenough.render.html.timeline import legend, timeline_svg
from fastenough.render.view.model import Timeline

S = 1_000_000_000


def report(exit_s: float) -> Timeline:
    t0 = 1_700_000_000 * S
    phases = [("startup", 0.0, 1.0), ("warmup", 1.0, 2.0), ("steady", 2.0, 6.0),
              ("tail", 6.0, 6.1)]
    return Timeline(
        rows=[(Partial({"name": n, "rank": 0, "start_ns": t0 + int(a * S),
                        "end_ns": t0 + int(b * S), "host_ns": int((b - a) * S)}), None)
              for n, a, b in phases],
        start_wall_ns=t0, end_wall_ns=t0 + int((6.1 + exit_s) * S))


def titles(svg: str) -> list[str]:
    return re.findall(r"<title>([^<]*)</title>", svg)


def test_a_long_exit_is_labelled():
    svg = timeline_svg(report(3.9))
    (exit_title,) = [t for t in titles(svg) if t.startswith("exit")]
    assert exit_title.startswith("exit: 3.90 s after the last phase"), exit_title
    assert ("#e4e7eb", "exit", "3.90 s") in legend(report(3.9))


def test_an_instant_exit_is_not_drawn():
    svg = timeline_svg(report(0.05))
    assert not [t for t in titles(svg) if t.startswith("exit")]
    assert all(name != "exit" for _, name, _ in legend(report(0.05)))
