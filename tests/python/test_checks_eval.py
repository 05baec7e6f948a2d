"""autograd-in-eval and train-mode-in-eval on real torch (CPU)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from checks_helpers import findings, line_of, run_checks  # noqa: E402


def make_model(dropout: float = 0.0):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                               torch.nn.Dropout(dropout), torch.nn.Linear(32, 4))


def eval_loop(model, steps=6, inference=False):
    x = torch.randn(8, 16)
    total = torch.zeros(())
    for _ in range(steps):
        if inference:
            with torch.inference_mode():
                y = model(x)
        else:
            y = model(x)  # MODEL-CALL
        total = total + y.detach().sum() if not inference else total + y.sum()
    return total


def test_autograd_in_eval_found_with_location(tmp_path):
    model = make_model().eval()
    doc = run_checks(tmp_path, lambda reg: eval_loop(model))
    [f] = findings(doc, "autograd-in-eval")
    assert f["verdict"] == "avoidable" and f["source"] == "agent"
    assert f["evidence"]["graph_outputs"] == 6
    assert f["evidence"]["backward_calls"] == 0
    assert f["evidence"]["params_requiring_grad"] == 4
    # Saved activations of one forward: at least the ReLU output [8, 32] fp32.
    assert f["evidence"]["graph_bytes_per_forward"] >= 8 * 32 * 4
    assert f["where"][0]["line"] == line_of(eval_loop, "MODEL-CALL")
    # Priced by the eval probe, on by default where cheap (test_eval_probe.py).
    assert f["saving"]["per_step_ns"] is not None
    assert f["evidence"]["saving_basis"].startswith("measured")


def test_autograd_not_flagged_under_inference_mode(tmp_path):
    model = make_model().eval()
    doc = run_checks(tmp_path, lambda reg: eval_loop(model, inference=True))
    assert findings(doc, "autograd-in-eval") == []
    assert findings(doc, "train-mode-in-eval") == []


def test_autograd_not_flagged_when_training(tmp_path):
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(reg):
        x = torch.randn(8, 16)
        for _ in range(4):
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    doc = run_checks(tmp_path, train)
    assert findings(doc, "autograd-in-eval") == []
    assert findings(doc, "train-mode-in-eval") == []
    # The SGD optimizer has no state; the census still sees the parameters.
    groups = doc["census"]["phases"][-1]["groups"]
    assert groups["parameters"]["bytes"] == (16 * 32 + 32 + 32 * 4 + 4) * 4


def test_probe_measures_a_saving(tmp_path):
    model = make_model().eval()
    doc = run_checks(tmp_path, lambda reg: eval_loop(model), {"probe": True})
    [f] = findings(doc, "autograd-in-eval")
    assert f["evidence"]["probe_grad_ns"] > 0 and f["evidence"]["probe_inference_ns"] > 0
    assert f["saving"]["per_step_ns"] is not None and f["saving"]["upper_bound"] is True


def test_train_mode_in_eval(tmp_path):
    model = make_model(dropout=0.1)  # left in training mode
    doc = run_checks(tmp_path, lambda reg: eval_loop(model, inference=True))
    [f] = findings(doc, "train-mode-in-eval")
    assert f["evidence"]["training_dropout_modules"] == 1
    assert f["evidence"]["modules"] == "2"
    model.eval()
    doc = run_checks(tmp_path, lambda reg: eval_loop(model, inference=True))
    assert findings(doc, "train-mode-in-eval") == []


def _train_steps(model, opt, x, n):
    for _ in range(n):
        loss = model(x).pow(2).mean()  # TRAIN-FORWARD
        opt.zero_grad()
        loss.backward()
        opt.step()


def test_first_training_forward_after_eval_is_training(tmp_path):
    # nanoGPT's train.py: an evaluation loop under no_grad between training
    # steps. The first training forward after it builds a graph before its
    # backward is seen: it is training, not the end of the evaluation loop.
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(8, 16)

    def program(reg):
        for _ in range(3):
            _train_steps(model, opt, x, 4)
            model.eval()
            with torch.no_grad():
                for _ in range(40):
                    model(x)
            model.train()
        _train_steps(model, opt, x, 4)

    doc = run_checks(tmp_path, program)
    assert findings(doc, "autograd-in-eval") == []


def test_rollout_graphs_backpropagated_later_are_training(tmp_path):
    # REINFORCE: each episode runs 30 single-row policy forwards (graphs kept,
    # dropout in training mode) and one backward through all of them at its
    # end. Following "use inference_mode" there would break training.
    model = make_model(dropout=0.5)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def program(reg):
        for _ in range(4):
            outs = [model(torch.randn(1, 16)).sum() for _ in range(30)]
            loss = torch.stack(outs).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    doc = run_checks(tmp_path, program)
    assert findings(doc, "autograd-in-eval") == []
    assert findings(doc, "train-mode-in-eval") == []


def test_eval_loop_with_graphs_after_training_still_found(tmp_path):
    # The case the check exists for: training, then an evaluation loop that
    # forgot no_grad (graphs built, never backpropagated).
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(8, 16)

    def program(reg):
        _train_steps(model, opt, x, 6)
        model.eval()
        eval_loop(model, steps=60)

    doc = run_checks(tmp_path, program)
    [f] = findings(doc, "autograd-in-eval")
    assert f["evidence"]["eval_stretch_forwards"] >= 59, f["evidence"]
    assert f["where"][0]["line"] == line_of(eval_loop, "MODEL-CALL")
