"""The sequential design of `fastenough ab` (issue 24, item 7): stopping at the
first look that decides must not claim differences that are not there more
often than the stated level."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli

from fastenough import _core
from fastenough.ab.design import SequentialPlan


def test_each_look_spends_its_share_of_alpha():
    plan = SequentialPlan.sequential(5, 0.95)
    assert (plan.min_rounds, plan.max_rounds, plan.looks) == (2, 5, 4)
    assert plan.look_confidence == pytest.approx(1 - 0.05 / 4)
    fixed = SequentialPlan.fixed(3, 0.99)
    assert (fixed.min_rounds, fixed.max_rounds, fixed.looks, fixed.look_confidence) == \
        (3, 3, 1, 0.99)
    d = plan.describe(rounds=2, stopped="decided")
    assert d["pairs"] == 4 and "decided at look 1" in d["text"]


def _claims(plan: SequentialPlan, confidence_per_look: float, sims: int, seed: int) -> float:
    """Share of simulated A/B runs with no real difference (each pair's log
    ratio ~ N(0, 0.2): a busy machine) in which some look claimed one."""
    rng = np.random.default_rng(seed)
    claims = 0
    for _ in range(sims):
        a = np.exp(rng.normal(0.0, 0.2, 2 * plan.max_rounds))
        b = np.ones_like(a)
        for rounds in range(plan.min_rounds, plan.max_rounds + 1):
            n = 2 * rounds
            ci = _core.paired_ratio(list(a[:n]), list(b[:n]), confidence_per_look)
            if ci["low"] > 1.0 or ci["high"] < 1.0:
                claims += 1
                break
    return claims / sims


def test_stopping_early_keeps_the_false_claim_rate():
    plan = SequentialPlan.sequential(5, 0.95)
    sims = 2000
    spent = _claims(plan, plan.look_confidence, sims, seed=7)
    # Within 3 binomial standard errors of the 5% the design promises.
    assert spent <= 0.05 + 3 * (0.05 * 0.95 / sims) ** 0.5, spent
    # The same looks at 95% each (plain optional stopping) claim far more often:
    # what the alpha spending is for.
    naive = _claims(plan, 0.95, sims, seed=7)
    assert naive > 0.08 and naive > 1.5 * spent, (naive, spent)


@pytest.fixture
def prog(tmp_path):
    p = tmp_path / "prog.py"
    p.write_text(
        "import sys, time, torch\n"
        "torch.set_num_threads(1)\n"
        "model = torch.nn.Linear(16, 16)\n"
        "slow = sys.argv[1] == 'slow'\n"
        "with torch.no_grad():\n"
        "    for _ in range(40):\n"
        "        model(torch.randn(4, 16))\n"
        "        time.sleep(0.025 if slow else 0.002)\n")
    return p


def test_a_large_difference_is_decided_in_two_blocks(tmp_path, prog):
    pytest.importorskip("torch")
    py = f"{__import__('sys').executable} {prog}"
    r = run_cli("ab", "--json", "--no-trace", "--no-history", "--dir", tmp_path / "ab",
                f"{py} slow", f"{py} fast", cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["speed"] == "B faster", doc["verdict"]
    assert doc["design"]["kind"] == "sequential"
    # Decided at the first look (2 blocks) here; a stall of a busy machine in
    # one pair may take one block more, never the whole --max-rounds.
    assert doc["design"]["stopped"] == "decided" and doc["design"]["rounds"] <= 3, doc["design"]
    assert len(doc["order"]) == 4 * doc["design"]["rounds"]
    assert doc["ratio"]["confidence"] == pytest.approx(1 - 0.05 / 4)


def test_the_budget_stops_after_the_minimum(tmp_path, prog):
    pytest.importorskip("torch")
    py = f"{__import__('sys').executable} {prog}"
    # Two identical sides, and a confidence so high that no look can decide on
    # a busy machine's noise: what stops the A/B is the budget alone.
    r = run_cli("ab", "--no-trace", "--no-history", "--budget", "1", "--confidence", "0.9999",
                "--dir", tmp_path / "ab", f"{py} fast", f"{py} fast", cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stderr
    assert "2 A B B A block(s), 4 pairs; stopped: the next block would have ended after " \
           "--budget" in " ".join(r.stdout.split()), r.stdout
    r = run_cli("ab", "--rounds", "2", "--budget", "5", "a", "b", cwd=tmp_path)
    assert r.returncode == 2 and "--budget applies to the sequential design" in r.stderr
