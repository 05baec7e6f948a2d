"""`fastenough ab` times its rounds with `fastenough run --timing-only` (issue 37
items 1/2, bench/calibrate_savings.md "ab measures under the agent").

Each side's first run keeps the full agent (checks, profiler window): its
report carries the findings and its outputs are compared. The checks hook
module calls, so their cost per step depends on the program: lm-eval's
full-vocab-logits fix B calls lm_head 8 times a batch, and the agent cost it
~+2.2 ms a step against A's ~+1 ms; ab's B/A was the program's gain plus that
difference. Every later run is timing-only, and the ratio is of the pairs whose
runs are both timing-only."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from conftest import run_cli
from report_docs import report_doc

from fastenough.ab.document import document
from fastenough.ab.runner import SideRun
from fastenough.ab.sides import Side
from fastenough.render.ab_text import render_text
from fastenough.report import load


def _report(items_per_s: float, timing_only: bool):
    steps = {"steady_steps_per_s": items_per_s / 8, "items_per_s": items_per_s,
             "steady_count": 100, "steady_median_ns": 8e9 / items_per_s, "mode": "eval"}
    reasons = [{"code": "checks-off", "level": "partial", "text": "fastenough run "
                "--timing-only: no checks"}] if timing_only else []
    return load(report_doc(steps=steps, measurement={
        "status": "partial" if timing_only else "complete", "reasons": reasons}))


def _runs(tmp_path, side: str, values: list[float]) -> list[SideRun]:
    return [SideRun(side, i + 1, tmp_path / f"{side}{i + 1}", 0, _report(v, i > 0), i > 0)
            for i, v in enumerate(values)]


def test_the_ratio_is_of_the_timing_only_pairs(tmp_path):
    # Pair 1 ran the full agent: B1 paid it 3x more than A1 (0.5x); the
    # timing-only pairs show the program's own ratio, 1.0.
    runs = {"A": _runs(tmp_path, "A", [1000.0, 2000.0, 2000.0, 2000.0]),
            "B": _runs(tmp_path, "B", [500.0, 2000.0, 2000.0, 2000.0])}
    doc = document(Side("A", ["a"]), Side("B", ["b"]), runs, None, None, tmp_path / "ab")
    assert doc["ratio"]["pairs"] == 3
    assert doc["ratio"]["ratio"] == pytest.approx(1.0)
    assert doc["speed"] == "no difference shown"
    assert [r["timing_only"] for r in doc["sides"]["A"]["runs"]] == [False, True, True, True]
    # A timing-only run's measurement is complete as a timing (checks-off alone).
    assert [r["measurement"] for r in doc["sides"]["B"]["runs"]] == ["complete"] * 4
    assert doc["timing"]["full"] == ["A1", "B1"]
    assert doc["timing"]["timing_only"] == ["B2", "A2", "A3", "B3", "B4", "A4"]
    assert doc["timing"]["ratio_of"] == "timing-only pairs"
    assert len(doc["left_out"]) == 1 and doc["left_out"][0].startswith(
        "pair 1 (A1, B1): the full agent's runs")
    text = " ".join(line.strip() for line in render_text(doc).splitlines())
    assert ("A1 B1 ran the full agent (findings, outputs); B2 A2 A3 B3 B4 A4 ran `fastenough "
            "run --timing-only` (steps timed, no checks): B/A is of the timing-only pairs") in text
    assert "left out: pair 1 (A1, B1): the full agent's runs" in text
    # The sides' figures are the timing-only runs' medians (A1's 1000 is not one).
    assert "steady items/s 2,000 (median of 3) 2,000 (median of 3)" in " ".join(text.split())
    from fastenough.render.html.ab_page import ab_to_html

    page = ab_to_html(doc)
    assert "pair 3:" in page and "pair 4:" not in page  # the chart's 3 ratio pairs
    from fastenough.mcp.answers import ab_answer

    answer = ab_answer(doc, top=5, files={})
    assert answer["timing"].startswith("A1 B1 ran the full agent")
    assert [r["timing_only"] for r in answer["figures"]["runs"]][:4] == [False, True, True, True]
    assert answer["measurement"]["status"] == "complete"


def test_one_timing_only_pair_keeps_every_pair_and_says_so(tmp_path):
    # --rounds 1: A1 B1 B2 A2, one timing-only pair; a t interval needs two.
    runs = {"A": _runs(tmp_path, "A", [1000.0, 2000.0]), "B": _runs(tmp_path, "B", [500.0, 2000.0])}
    doc = document(Side("A", ["a"]), Side("B", ["b"]), runs, None, None, tmp_path / "ab")
    assert doc["ratio"]["pairs"] == 2 and doc["left_out"] == []
    assert doc["timing"]["ratio_of"] == "every pair"
    assert "fewer than 2 pairs are timing-only, so B/A is of every pair" in doc["timing"]["text"]


# B makes the calls of A, the head's from the top level where A makes them
# inside the model's forward (lm-eval's fix calls lm_head itself, 8 times a
# batch): plain, the same work. The checks hook root module calls, so under
# the full agent each of B's 256 head calls a step pays their hooks: steady
# median 6.8 ms in B against 2.0 ms in A (load 7.7); timing-only 2.3 against
# 2.0 ms.
PROGRAM = textwrap.dedent("""
    import sys, torch
    from torch import nn
    torch.set_num_threads(1)
    torch.manual_seed(0)

    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(()))

        def forward(self, h):
            return h * self.w

    class Scorer(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32))
            self.head = Scale()

        def forward(self, x):
            h = self.body(x)
            return torch.stack([self.head(h[i]) for i in range(h.shape[0])])

    model = Scorer().eval()
    x = torch.randn(256, 32)
    with torch.no_grad():
        for step in range(500):
            if sys.argv[1] == "B":
                h = model.body(x)
                y = torch.stack([model.head(h[i]) for i in range(h.shape[0])])
            else:
                y = model(x)
            y.sum().item()
""")


def test_ab_no_longer_measures_the_agents_cost_of_more_module_calls(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    a, b = (f"{sys.executable} {prog} {s}" for s in "AB")
    r = run_cli("ab", "--json", "--no-trace", "--no-history", "--rounds", "2", "--dir",
                tmp_path / "ab", a, b, cwd=tmp_path, timeout=900,
                env={"OMP_NUM_THREADS": "1"})
    assert "Traceback" not in r.stderr, r.stderr
    doc = json.loads(r.stdout)
    runs = {s: doc["sides"][s]["runs"] for s in "AB"}
    assert [x["timing_only"] for x in runs["A"]] == [False, True, True, True]
    # The agent's own cost, as it timed it (agent/own_cost.py): the machine's
    # load stretches it on both sides alike, where one A1 against one B1 in
    # wall time did not hold (B1/A1 0.87 in a CI rehearsal at load 3, the
    # program's own steps 3.5-10 ms from run to run).
    cost = {r: _own_cost(tmp_path / "ab" / r) for r in ("A1", "B1", "A2", "B2", "A3", "B3")}
    # The full agent's pair still pays for B's 256 root calls a step (B1 1.1 ms a
    # step at its steady base against A1's 0.14 ms) ...
    assert cost["B1"]["base_ns_per_step"] > 3 * cost["A1"]["base_ns_per_step"], cost
    # ... and the timing-only runs do not: a small share of every step, B's as A's
    # (B2 0.1 ms of a 2.4-10 ms step; B1 2.0 ms of 8.3).
    for r in ("A2", "B2", "A3", "B3"):
        run = next(x for x in runs[r[0]] if x["run_dir"].endswith("/" + r))
        assert cost[r]["ns_per_step"] < 0.1 * run["step_median_ns"], (r, cost[r], run)
    # The ratio, of the timing-only pairs, is the program's: its interval reaches
    # 1 within 15% (before: every run under the checks, B/A 0.3-0.6, "B slower").
    assert doc["timing"]["ratio_of"] == "timing-only pairs"
    assert doc["ratio"]["pairs"] == 3
    assert doc["ratio"]["low"] < 1.15 and doc["ratio"]["high"] > 0.85, (doc["ratio"], runs)
    # A1's report has the findings (the checks ran there), B2's says they were off.
    a1 = json.loads((tmp_path / "ab" / "A1" / "report.json").read_text())
    b2 = json.loads((tmp_path / "ab" / "B2" / "report.json").read_text())
    assert "checks-off" not in [x["code"] for x in a1["measurement"]["reasons"]]
    assert [x["code"] for x in b2["measurement"]["reasons"]] == ["checks-off"]
    assert (tmp_path / "ab" / "A1" / "checks.json").exists()
    assert not (tmp_path / "ab" / "B2" / "checks.json").exists()


def _own_cost(run_dir) -> dict:
    """The main process's own_cost record (agent/<pid>.json) of a run."""
    for path in sorted((run_dir / "agent").glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("own_cost"):
            return record["own_cost"]
    raise AssertionError(f"{run_dir}: no agent record with own_cost")
