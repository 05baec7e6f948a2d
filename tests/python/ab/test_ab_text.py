"""`fastenough ab`'s text for a newcomer (issue 36, item 4): 80 columns, the
measurement row readable when a side mixes complete and partial runs, the
outputs' figures said in words, and "outputs differ" tied to the finding that
explains it (dropout on in A, turned off by B's fix)."""

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


def _report(items_per_s, measurement="complete"):
    steps = {"steady_steps_per_s": items_per_s / 4, "items_per_s": items_per_s,
             "steady_count": 10, "steady_median_ns": 1e6}
    reasons = [] if measurement == "complete" else [{"code": "few-steady-steps",
                                                     "level": measurement, "text": "few"}]
    return load(report_doc(steps=steps,
                           measurement={"status": measurement, "reasons": reasons}))


def _differs():
    worst = {"key": "scores", "verdict": "differs", "max_abs": 3.1, "max_rel": 502.0,
             "max_ulp": 2025391065, "beyond_tolerance": 1931}
    return {"verdict": "differs", "counts": {"paired": 1, "bitwise_equal": 0,
                                             "within_tolerance": 0, "differs": 1},
            "worst": [worst]}


def test_mixed_measurements_are_named_below_the_table_within_80_columns(tmp_path):
    def runs(side, statuses):
        return [SideRun(side, i + 1, tmp_path / f"{side}{i + 1}", 0, _report(10.0 + i, s))
                for i, s in enumerate(statuses)]

    mixed = ["partial", "complete", "complete", "complete"]
    doc = document(Side("A", ["python", "a.py"]), Side("B", ["python", "b.py"]),
                   {"A": runs("A", mixed), "B": runs("B", mixed)}, _differs(), None,
                   tmp_path / "ab-1")
    text = render_text(doc)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, text
    # Was: "complete (A2 A3 A4), partial (A1) complete (B2 B3 B4), partial (B1)" in one row.
    row = next(line for line in lines if line.lstrip().startswith("measurement "))
    assert row.split() == ["measurement", "3", "of", "4", "complete", "3", "of", "4", "complete"]
    words = " ".join(line.strip() for line in lines)
    assert "measurement incomplete in A1 (partial), B1 (partial); the other runs are complete" \
        in words
    # max_rel 502, max_ulp 2025391065: a sentence says what they mean.
    assert "scores: max_abs 3.1, max_rel 502, max_ulp 2025391065" in words
    assert "In words: the elements of scores differ by up to 3.1 (max_abs), by up to 502 " \
           "times A's own value (max_rel) and are up to 2,025,391,065 representable numbers " \
           "apart (max_ulp; rounding differences are a few). Not rounding: the two sides " \
           "computed different values." in words


def test_all_complete_sides_keep_one_word(tmp_path):
    def runs(side):
        return [SideRun(side, i + 1, tmp_path / f"{side}{i + 1}", 0, _report(10.0 + i))
                for i in range(2)]

    doc = document(Side("A", ["a"]), Side("B", ["b"]), {"A": runs("A"), "B": runs("B")},
                   None, None, tmp_path)
    text = render_text(doc)
    assert "measurement incomplete" not in text
    row = next(line for line in text.splitlines() if line.lstrip().startswith("measurement "))
    assert row.split() == ["measurement", "complete", "complete"]


# Side A scores with dropout on (nothing calls model.eval()); side B is the fix.
DROPOUT = textwrap.dedent("""
    import torch, fastenough
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Dropout(0.5),
                                torch.nn.Linear(64, 4))
    data = torch.randn(2048, 32)
    # FIX


    def main():
        outs = []
        for lo in range(0, 2048, 16):
            outs.append(model(data[lo:lo + 16]).detach())
        fastenough.record("scores", torch.cat(outs))


    main()
""")


def test_outputs_differ_is_tied_to_dropout_left_on(tmp_path):
    pytest.importorskip("torch")
    a = tmp_path / "score_a.py"
    b = tmp_path / "score_b.py"
    a.write_text(DROPOUT)
    b.write_text(DROPOUT.replace("# FIX", "model.eval()"))
    r = run_cli("ab", "--no-trace", "--rounds", "1", "--dir", tmp_path / "ab",
                f"{sys.executable} {a}", f"{sys.executable} {b}", cwd=tmp_path, timeout=900,
                env={"OMP_NUM_THREADS": "1", "COLUMNS": "80"})
    assert r.returncode == 1, (r.stdout, r.stderr)  # the outputs differ
    assert "Traceback" not in r.stderr
    lines = r.stdout.splitlines()
    # 80 columns, but for a line that is one word: a path longer than the width
    # (the interpreter of a clone under a long directory) is kept whole, to be
    # copied, on a line of its own.
    assert all(len(line) <= 80 or len(line.split()) == 1 for line in lines), r.stdout
    text = " ".join(line.strip() for line in lines)
    assert "why the outputs differ: A's report has train-mode-in-eval at " in text, r.stdout
    assert "score_a.py:" in text.split("why the outputs differ:")[1]
    assert "dropout and batch-norm ran in training mode in A and not in B, which changes " \
        "results, not only speed; the outputs are expected to differ" in text
    doc = json.loads((tmp_path / "ab" / "ab.json").read_text())
    assert [(e["side"], e["code"]) for e in doc["outputs_explained"]] == \
        [("A", "train-mode-in-eval")]
    page = (tmp_path / "ab" / "ab.html").read_text()
    assert "why the outputs differ: A&#x27;s report has train-mode-in-eval" in page or \
        "why the outputs differ: A's report has train-mode-in-eval" in page
