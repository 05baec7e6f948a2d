"""Memory census and duplicate-weights."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from checks_helpers import findings, run_checks  # noqa: E402


class WithCopy(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(256, 256)  # 256 KiB of weights
        if mode == "copy":
            self.backup = self.lin.weight.detach().clone()  # a second resident copy
        elif mode == "view":
            self.wt = self.lin.weight.detach().t()  # a view: same storage

    def forward(self, x):
        return self.lin(x)


def body_for(model):
    def body(reg):
        with torch.inference_mode():
            for _ in range(3):
                model(torch.randn(4, 256))
        reg.on_phase_end("steady")

    return body


def test_second_copy_of_weights_flagged(tmp_path):
    doc = run_checks(tmp_path, body_for(WithCopy("copy")))
    [f] = findings(doc, "duplicate-weights")
    assert f["evidence"]["duplicate_bytes"] == 256 * 256 * 4
    assert f["evidence"]["copies"] == 2
    assert "WithCopy.lin.weight" in f["evidence"]["tensors"]
    [dup] = doc["census"]["duplicates"]
    assert sorted(dup["groups"]) == ["other", "parameters"]


def test_transposed_view_not_flagged(tmp_path):
    model = WithCopy("view")
    doc = run_checks(tmp_path, body_for(model))
    assert findings(doc, "duplicate-weights") == []
    phase = doc["census"]["phases"][0]
    assert phase["phase"] == "steady"
    # The view shares the weight's storage: parameters counted once, exactly.
    assert phase["groups"]["parameters"]["bytes"] == (256 * 256 + 256) * 4
    assert phase["duplicates"] == []


def test_optimizer_state_and_inference_tensors(tmp_path):
    model = torch.nn.Linear(64, 64)
    opt = torch.optim.Adam(model.parameters())
    with torch.inference_mode():
        model.register_buffer("made_in_inference", torch.zeros(3))

    def body(reg):
        for _ in range(2):
            model(torch.randn(2, 64)).sum().backward()
            opt.step()
        reg.on_phase_end("train")

    doc = run_checks(tmp_path, body)
    phase = doc["census"]["phases"][0]
    # Adam: exp_avg and exp_avg_sq per parameter (fp32) + a step counter each.
    assert phase["groups"]["optimizer_state"]["bytes"] >= 2 * (64 * 64 + 64) * 4
    assert phase["optimizers"] == ["Adam"]
    assert any(n.endswith("made_in_inference") for n in phase["inference_tensors_in_modules"])
    assert phase["device"] == "cpu" and phase["rss_bytes"] > 0
