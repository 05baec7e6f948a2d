"""`fastenough ab` when the fix changes what a step is (bench/calibrate_savings.md,
dqn-acting): cleanrl's DQN with its acting forward moved under inference_mode has
its acting forwards counted as evaluation steps, where A had training steps.
Steps/s then compares an acting forward with a training step (ab said 8.87x "B
faster" for the same training in equal CPU time). Unlike steps (another mode, or
in steps/s steady counts more than 2x apart) are compared on each run's whole
wall time instead, and the document and the text say why."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from conftest import run_cli
from report_docs import report_doc

from fastenough.ab.document import document
from fastenough.ab.figures import WHOLE_RUN, Figures, unlike_steps
from fastenough.ab.runner import SideRun
from fastenough.ab.sides import Side
from fastenough.render.ab_text import render_text
from fastenough.report import load


def _fig(mode, steady, steps_per_s, items_per_s=None, wall_ns=3_000_000_000):
    return Figures(steps_per_s=steps_per_s, items_per_s=items_per_s, step_median_ns=1e6,
                   steady_steps=steady, cold_start_ns=None, wall_ns=wall_ns,
                   peak_rss_bytes=None, peak_device_bytes=None, measurement="complete",
                   mode=mode)


def test_the_unlike_steps_rule_on_figures():
    train = [_fig("train", 400, 160.0), _fig("train", 410, 150.0)]
    # Another mode: unlike, whatever the counts and the unit.
    acting = [_fig("eval", 2842, 8000.0), _fig("eval", 2840, 8100.0)]
    why = unlike_steps(train, acting, "steps/s")
    assert why == ("the fix changed what a step is: A's steady steps are 405 train steps, "
                   "B's 2841 eval steps; compared on the whole run's time")
    assert unlike_steps(train, [_fig("eval", 400, 150.0)] * 2, "items/s") is not None
    # The same mode, counts more than 2x apart: unlike in steps/s ...
    many = [_fig("train", 900, 400.0)] * 2
    assert "A's steady steps are 405 train steps, B's 900 train steps" in \
        unlike_steps(train, many, "steps/s")
    # ... not in items/s, which counts the same items whatever a step holds (a
    # batch size change is a protocol change, said as one).
    assert unlike_steps(train, many, "items/s") is None
    # 2x apart or less, the same mode: like steps.
    assert unlike_steps(train, [_fig("train", 810, 300.0)] * 2, "steps/s") is None
    # A mode one side does not report is no difference; the counts still decide.
    assert unlike_steps(train, [_fig(None, 420, 150.0)] * 2, "steps/s") is None
    assert unlike_steps(train, [_fig(None, 2000, 150.0)] * 2, "steps/s") == (
        "the fix changed what a step is: A's steady steps are 405 train steps, B's 2000 "
        "steps; compared on the whole run's time")
    # Runs without steady steps (or no run) do not count.
    assert unlike_steps(train + [None, _fig("eval", 0, None)], train, "steps/s") is None


def _report(mode, steady, steps_per_s, wall_ns):
    steps = {"steady_steps_per_s": steps_per_s, "items_per_s": None, "steady_count": steady,
             "steady_median_ns": 1e9 / steps_per_s, "mode": mode}
    return load(report_doc(steps=steps, run={"wall_ns": wall_ns},
                           measurement={"status": "complete", "reasons": []}))


def _runs(tmp_path, side, mode, steady, rates, walls):
    return [SideRun(side, i + 1, tmp_path / f"{side}{i + 1}", 0,
                    _report(mode, steady, rate, wall))
            for i, (rate, wall) in enumerate(zip(rates, walls, strict=True))]


def test_unlike_steps_are_compared_on_the_whole_run(tmp_path):
    # dqn-acting's figures: A 401 train steps at ~160/s, B 2842 eval steps at
    # ~1400/s (8.87x in steps/s); the whole runs take about as long.
    a_walls = [3_000_000_000, 3_100_000_000, 2_950_000_000, 3_050_000_000]
    b_walls = [3_200_000_000, 3_300_000_000, 3_150_000_000, 3_250_000_000]
    runs = {"A": _runs(tmp_path, "A", "train", 401, [160, 158, 162, 161], a_walls),
            "B": _runs(tmp_path, "B", "eval", 2842, [1420, 1400, 1430, 1415], b_walls)}
    doc = document(Side("A", ["python", "dqn.py"]), Side("B", ["python", "dqn_fixed.py"]),
                   runs, None, None, tmp_path / "ab")
    assert doc["unit"] == WHOLE_RUN == "runs/s"
    assert doc["unit_why"] == ("the fix changed what a step is: A's steady steps are 401 train "
                               "steps, B's 2842 eval steps; compared on the whole run's time")
    expected = 1.0
    for a, b in zip(a_walls, b_walls, strict=True):
        expected *= a / b
    assert doc["ratio"]["ratio"] == pytest.approx(expected ** 0.25, rel=1e-9)
    assert doc["speed"] == "B slower"
    assert doc["verdict"] == ("B slower on the whole run's time (the fix changed what a step "
                              "is)")
    assert all("mode" not in r for s in "AB" for r in doc["sides"][s]["runs"])
    text = render_text(doc)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    words = " ".join(line.strip() for line in text.splitlines())
    assert "unlike steps: the fix changed what a step is: A's steady steps are 401 train " \
        "steps, B's 2842 eval steps; compared on the whole run's time" in words
    assert "B/A of the whole run's speed (A's wall time / B's): 0.938 (95% interval" in words
    assert "steps/s (not compared)" in text and "B/A steady" not in text
    assert text.rstrip().splitlines()[-1].startswith("verdict: B slower on the whole run's")
    from fastenough.render.html.ab_page import ab_to_html

    page = ab_to_html(doc)
    assert "unlike steps: the fix changed what a step is" in page
    assert "pair 1: 0.938" in page  # A1's wall over B1's, not their steps/s


def test_unlike_steps_without_the_whole_run_time_compare_nothing(tmp_path):
    runs = {"A": _runs(tmp_path, "A", "train", 401, [160, 158], [3_000_000_000, None]),
            "B": _runs(tmp_path, "B", "eval", 2842, [1420, 1400], [3_200_000_000, 3_100_000_000])}
    doc = document(Side("A", ["a"]), Side("B", ["b"]), runs, None, None, tmp_path / "ab")
    assert doc["ratio"] is None and doc["speed"] == "not measured"
    assert doc["left_out"] == ["pair 2 (A2, B2): A2 measured no whole-run time"]
    assert doc["verdict"] == (
        "not measured: the fix changed what a step is: A's steady steps are 401 train steps, "
        "B's 2842 eval steps; compared on the whole run's time, and 1 pair(s) have both "
        "runs' whole time (2 or more needed): nothing can be compared")


def test_like_steps_keep_their_unit_and_document(tmp_path):
    runs = {"A": _runs(tmp_path, "A", "train", 400, [100, 103, 98, 101], [3_000_000_000] * 4),
            "B": _runs(tmp_path, "B", "train", 410, [410, 395, 402, 399], [3_000_000_000] * 4)}
    doc = document(Side("A", ["a"]), Side("B", ["b"]), runs, None, None, tmp_path / "ab")
    assert doc["unit"] == "steps/s" and "unit_why" not in doc
    assert doc["verdict"] == "B faster" and doc["ratio"]["ratio"] > 3.5
    assert "unlike steps" not in render_text(doc)


# cleanrl DQN's loop in small, without an environment: an acting forward per
# environment step, a training step (forward, backward, Adam) every 50 of them.
# B is A with autograd-in-eval's fix: the acting forward under inference_mode,
# whose 2500 forwards the agent then counts as evaluation steps (the headline:
# the most steady time), where A's steady steps are its ~50-100 training steps.
ACTING = textwrap.dedent("""
    import sys, torch
    side = sys.argv[1]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    q = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 4))
    opt = torch.optim.Adam(q.parameters(), lr=1e-3)
    obs = torch.randn(1, 64)
    replay = torch.randn(4096, 64)
    acts = 0
    for step in range(2500):
        if side == "B":
            with torch.inference_mode():
                a = q(obs).argmax(1)
        else:
            a = q(obs).argmax(1)
        acts += int(a)
        obs = torch.randn(1, 64)
        if step % 50 == 49:
            lo = (step * 7) % 4000
            loss = q(replay[lo:lo + 32]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("acts", acts)
""")


def test_acting_under_inference_mode_is_not_claimed_many_times_faster(tmp_path):
    pytest.importorskip("torch")
    prog = tmp_path / "acting.py"
    prog.write_text(ACTING)
    r = run_cli("ab", "--json", "--no-trace", "--no-history", "--rounds", "1", "--dir",
                tmp_path / "ab", f"{sys.executable} {prog} A", f"{sys.executable} {prog} B",
                cwd=tmp_path, timeout=900, env={"OMP_NUM_THREADS": "1"})
    assert "Traceback" not in r.stderr, r.stderr
    doc = json.loads(r.stdout)
    runs = {s: doc["sides"][s]["runs"] for s in "AB"}
    # What the fix did to the steps: B counts its acting forwards (2500), A its
    # training steps; steps/s alone said B was many times faster (about 20x here).
    steps_ratio = [b["steps_per_s"] / a["steps_per_s"]
                   for a, b in zip(runs["A"], runs["B"], strict=True)]
    assert min(steps_ratio) > 5, steps_ratio
    assert doc["unit"] == "runs/s", (doc["unit"], doc.get("unit_why"))
    assert "A's steady steps are " in doc["unit_why"] and " train steps, B's " in \
        doc["unit_why"] and " eval steps; compared on the whole run's time" in doc["unit_why"]
    # The same training and acting in both: the whole runs take about as long
    # (B saves the autograd graph of 2500 small forwards, a few percent at most).
    assert 0.5 < doc["ratio"]["ratio"] < 2.0, (doc["ratio"], steps_ratio)
    assert "on the whole run's time (the fix changed what a step is)" in doc["verdict"]
