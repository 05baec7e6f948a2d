"""Memory census and duplicate-weights."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from checks_helpers import findings, run_checks  # noqa: E402


class WithCopy(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(2048, 2048)  # 16 MiB of weights
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
                model(torch.randn(4, 2048))
        reg.on_phase_end("steady")

    return body


def test_second_copy_of_weights_flagged(tmp_path):
    doc = run_checks(tmp_path, body_for(WithCopy("copy")))
    [f] = findings(doc, "duplicate-weights")
    assert f["evidence"]["duplicate_bytes"] == 2048 * 2048 * 4
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
    assert phase["groups"]["parameters"]["bytes"] == (2048 * 2048 + 2048) * 4
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


def _peak_rss_reset() -> bool:
    # Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) of this process.
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _vm_hwm() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_census_of_a_real_language_model_neither_crashes_nor_copies(tmp_path):
    """GPT-2's 50257 x 768 embedding is 154 MB: beyond 2**24 bytes a float32
    linspace of sample offsets ran past the end (IndexError), the checks stopped,
    and the report said "Findings: none" (issue 14, defect 2). A copy of the
    embedding (here tied to the output layer) would also show as +154 MB of RSS."""
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=2, n_head=4, n_embd=768)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config).eval()
    nbytes = sum(p.numel() * p.element_size() for p in model.parameters())
    assert nbytes > 100e6
    ids = torch.randint(0, config.vocab_size, (2, 16))

    peak = {}

    def body(reg):
        with torch.inference_mode():
            for _ in range(2):
                model(input_ids=ids)
        peak["reset"] = _peak_rss_reset()
        before = _vm_hwm()
        reg.on_phase_end("steady")
        peak["delta"] = _vm_hwm() - before

    doc = run_checks(tmp_path, body)  # also asserts that the checks did not stop
    [phase] = [p for p in doc["census"]["phases"] if p["phase"] == "steady"]
    # Tied input and output embeddings are one storage: counted once.
    assert phase["groups"]["parameters"]["bytes"] == nbytes
    assert findings(doc, "duplicate-weights") == []
    if peak["reset"]:
        assert peak["delta"] < 32 << 20, peak  # no copy of any weight


def test_cloned_layers_that_training_makes_differ_are_not_copies(tmp_path):
    # nn.TransformerEncoder deep-copies its layer: before the first optimizer
    # step every layer holds the same weights (a census then sees copies), and
    # training makes them differ. Only copies still equal at the end count.
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(128, 2, 256, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def body(reg):
        reg.on_phase_end("startup")  # the clones are equal here
        for _ in range(3):
            opt.zero_grad()
            model(torch.randn(8, 4, 128)).square().mean().backward()
            opt.step()
        reg.on_phase_end("steady")

    doc = run_checks(tmp_path, body)
    assert doc["census"]["phases"][0]["duplicates"], "the clones were equal at the first census"
    assert findings(doc, "duplicate-weights") == []
    assert doc["census"]["duplicates"] == []
    assert {d["reason"] for d in doc["census"]["duplicates_not_kept"]} == {"diverged"}


def test_equal_temporaries_and_optimizer_copies_are_no_weights(tmp_path):
    # Forward-pass temporaries of equal content, and an optimizer's working
    # copies (LBFGS keeps flat_grad and prev_flat_grad), are not weights.
    model = torch.nn.Linear(64, 64)
    opt = torch.optim.LBFGS(model.parameters(), max_iter=4)
    kept = [torch.ones(512, 512) * 3 for _ in range(4)]  # 1 MiB each, equal
    x = torch.randn(8, 64)

    def body(reg):
        for _ in range(3):
            def closure():
                opt.zero_grad()
                loss = model(x).pow(2).mean()
                loss.backward()
                return loss
            opt.step(closure)
        reg.on_phase_end("steady")

    doc = run_checks(tmp_path, body)
    assert doc["census"]["phases"][0]["duplicates"], "equal tensors were resident"
    assert findings(doc, "duplicate-weights") == []
    del kept


class MaskedLayers(torch.nn.Module):
    """minGPT's attention layers: each registers the same causal-mask buffer."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(6))
        for layer in self.layers:
            layer.register_buffer("mask", torch.tril(torch.ones(128, 128)).view(1, 1, 128, 128))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_small_equal_buffers_are_not_worth_a_finding(tmp_path):
    model = MaskedLayers()

    def body(reg):
        with torch.no_grad():
            for _ in range(3):
                model(torch.randn(2, 16))
        reg.on_phase_end("steady")

    doc = run_checks(tmp_path, body)
    [dup] = doc["census"]["phases"][0]["duplicates"]
    assert dup["copies"] == 6 and sorted(set(dup["groups"])) == ["buffers"]
    assert findings(doc, "duplicate-weights") == []  # 320 KiB: not worth a change
