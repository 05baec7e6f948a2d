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


def dqn(q, target, steps, learning_starts, train_every=4):
    """cleanrl's dqn.py in small: the acting forward runs with autograd on at
    every environment step; from learning_starts on, a training step (target
    under no_grad, a TD loss, backward, optimizer step) every train_every."""
    opt = torch.optim.Adam(q.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    obs = torch.randn(1, 16, generator=g)
    buf = []
    for step in range(steps):
        q_values = q(obs)  # ACTING
        action = int(torch.argmax(q_values, dim=1))
        nxt = torch.randn(1, 16, generator=g)
        buf.append((obs, nxt, action))
        obs = nxt
        if step >= learning_starts and step % train_every == 0:
            idx = torch.randint(0, len(buf), (8,), generator=g).tolist()
            o = torch.cat([buf[i][0] for i in idx])
            n = torch.cat([buf[i][1] for i in idx])
            a = torch.tensor([buf[i][2] for i in idx]).unsqueeze(1)
            with torch.no_grad():
                td_target = 1.0 + 0.99 * target(n).max(dim=1).values
            old_val = q(o).gather(1, a).squeeze()
            loss = torch.nn.functional.mse_loss(td_target, old_val)
            opt.zero_grad()
            loss.backward()
            opt.step()


@pytest.mark.parametrize("learning_starts", [3, 20])
def test_dqn_acting_forwards_counted_over_the_whole_run(tmp_path, learning_starts):
    # Issue 37, item 8: the acting forwards between training steps build graphs
    # no backward uses; only the stretch before training counted (20 of 160
    # here), or nothing when training starts at once.
    q, target = make_model(), make_model()
    doc = run_checks(tmp_path, lambda reg: dqn(q, target, 160, learning_starts))
    [f] = findings(doc, "autograd-in-eval")
    ev = f["evidence"]
    assert ev["unused_graph_forwards"] == 160, ev  # every acting forward (all examined)
    assert ev["unused_graph_sites"] == 1
    assert f["where"][0]["line"] == line_of(dqn, "ACTING")
    # Priced by the probe on an acting call, over the acting forwards only.
    saving = f["saving"]
    assert saving["per_step_ns"] is not None and saving["total_ns"] is not None, ev
    per_forward = saving["total_ns"] / 160
    assert per_forward <= ev["probe_grad_ns"] * ev.get("probe_scale", 1) * 1.01, ev


def test_dqn_acting_forwards_estimated_once_sampling(tmp_path):
    # Past the forwards examined one by one (512), one in 64 is: the count of
    # acting forwards is an estimate from them, still over the whole run.
    q, target = make_model(), make_model()
    doc = run_checks(tmp_path, lambda reg: dqn(q, target, 1200, 20))
    [f] = findings(doc, "autograd-in-eval")
    ev = f["evidence"]
    assert 0.8 * 1200 <= ev["unused_graph_forwards"] <= 1.2 * 1200, ev
    assert ev["forwards_total"] > ev["forwards"], ev  # sampled
    assert "estimated" in f["title"]


def test_forwards_inside_torch_func_transforms_are_not_examined(tmp_path):
    """A training loop of torch.func.grad over functional_call (and a vmap of
    the model, as functorch's examples write per-sample gradients): the model's
    forwards see functorch's wrapper tensors, whose storage cannot be read;
    the checks switched themselves off at the first one ("Cannot access
    storage of TensorWrapper") and the run's check findings were lost. Such
    forwards are not examined; the model's plain forwards still are."""
    from torch.func import functional_call, grad, vmap

    model = make_model()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(p, x):
        return functional_call(model, p, (x,)).pow(2).mean()

    def train(reg):
        x = torch.randn(8, 16)
        nonlocal params
        for _ in range(6):
            grads = grad(loss_fn)(params, x)
            params = {k: v - 0.1 * grads[k] for k, v in params.items()}
        vmap(model)(x)  # per-sample forwards
        model.eval()
        eval_loop(model, steps=12)  # plain forwards, autograd on: still found

    doc = run_checks(tmp_path, train)  # (asserts checks_error is None)
    assert doc["checks"]["forwards_examined"] == 12  # the plain ones only
    assert [f["code"] for f in findings(doc, "autograd-in-eval")] == ["autograd-in-eval"]
    assert findings(doc, "train-mode-in-eval") == []
