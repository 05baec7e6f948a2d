"""Each lint rule on small snippets: where it must fire (line exact) and where it must not."""

from __future__ import annotations

import textwrap

import pytest

from fastenough.lint.check import check_text


def found(src: str, codes: tuple[str, ...] | None = None) -> list[tuple[int, str]]:
    """(line, code) of every finding, or only of `codes`: a snippet about syncs
    that runs a model in a loop with autograd on is also an evaluation (issue 36)."""
    findings, error = check_text("snippet.py", textwrap.dedent(src))
    assert error is None
    return [(f.line, f.code) for f in findings if codes is None or f.code in codes]


SYNC = ("sync-in-loop",)


# -- host syncs -----------------------------------------------------------------
def test_item_in_loop_fires_and_item_outside_any_loop_does_not():
    assert found("""
        def run(model, loader):
            total = 0.0
            for x in loader:
                total += model(x).sum().item()
            return model(x).mean().item()
        """, SYNC) == [(5, "sync-in-loop")]


def test_sync_methods_on_host_values_numpy_and_cpu_tensors_do_not_fire():
    assert found("""
        import numpy as np
        import torch
        def run(xs):
            for lr in [0.1, 0.01, 0.001]:
                print(lr, float(lr))
            arr = np.zeros(4)
            for i in range(3):
                arr.item()
                arr.tolist()
                np.asarray(xs).tolist()
                torch.randint(0, 9, (4,)).tolist()
                torch.tensor(xs).numpy()
        """) == []


def test_cpu_then_numpy_is_one_finding_and_tolist_fires():
    assert found("""
        def run(model, loader):
            outs = []
            for x in loader:
                outs.append(model(x).detach().cpu().numpy())
                outs.append(model(x).argmax(-1).tolist())
        """, SYNC) == [(5, "sync-in-loop"), (6, "sync-in-loop")]


def test_tensor_conditions_print_and_explicit_syncs_in_loops():
    assert found("""
        import torch
        def run(model, loader):
            for x in loader:
                loss = torch.nn.functional.mse_loss(model(x), x)
                if torch.isnan(loss):
                    break
                assert torch.isfinite(loss).all()
                print(torch.mean(loss))
                print(f"loss {torch.mean(loss)}")
                torch.cuda.synchronize()
            torch.cuda.empty_cache()
            if torch.isnan(loss):
                print(loss)
        """, SYNC) == [(6, "sync-in-loop"), (8, "sync-in-loop"), (9, "sync-in-loop"),
                 (10, "sync-in-loop"), (11, "sync-in-loop")]


def test_loop_rules_follow_calls_into_functions_of_the_same_file():
    assert found("""
        class Trainer:
            def log(self, loss):
                return loss.item()
            def fit(self, loader):
                for x in loader:
                    self.log(self.model(x))
        def helper(t):
            return t.tolist()
        def main(ts):
            out = [helper(t) for t in ts]
            helper(ts[0])
        """, SYNC) == [(4, "sync-in-loop"), (9, "sync-in-loop")]


def test_comprehensions_and_while_tests_are_loops():
    assert found("""
        import torch
        def run(batches, x):
            vals = [b.sum().item() for b in batches]
            while torch.any(x > 0):
                x = x - 1
        """) == [(4, "sync-in-loop"), (5, "sync-in-loop")]


def test_epoch_loops_are_not_hot_loops():
    assert found("""
        def fit(model, loader, epochs):
            for epoch in range(epochs):
                for x in loader:
                    loss = model(x)
                    loss.backward()
                print(epoch, loss.item())
        """) == []


def test_dynamic_shapes_in_loops():
    assert found("""
        import numpy as np
        import torch
        def route(chosen, n, labels):
            for e in range(n):
                idx = torch.where(chosen == e)
                rows = (chosen == e).nonzero()
                u = torch.unique(chosen)
                ok = torch.where(chosen == e, 1.0, 0.0)
                np.unique(labels)
            return torch.nonzero(chosen)
        """) == [(6, "sync-in-loop"), (7, "sync-in-loop"), (8, "sync-in-loop")]


# -- transfers and DataLoader -----------------------------------------------------
def test_to_device_in_loop_without_non_blocking():
    assert found("""
        import torch
        def run(model, loader, device):
            for x, y in loader:
                x = x.to(device)
                y = y.to(device, non_blocking=True)
                z = x.to(torch.float16)
                w = y.cuda()
                v = x.to("cuda:0", True)
            return x.to(device)
        """) == [(5, "transfer-in-loop"), (8, "transfer-in-loop")]


def test_dataloader_rules_need_a_device_in_the_file():
    cpu_only = """
        from torch.utils.data import DataLoader
        def make(ds):
            return DataLoader(ds, batch_size=8)
        """
    assert found(cpu_only) == []
    assert found(cpu_only + "device = 'cuda'\n") == [(4, "dataloader-bound"),
                                                    (4, "pageable-memcpy")]
    assert found("""
        from torch.utils.data import DataLoader
        device = "cuda"
        def make(ds, **kw):
            a = DataLoader(ds, num_workers=4, pin_memory=True)
            b = DataLoader(ds, **kw)
        """) == []


# -- evaluation mode ----------------------------------------------------------------
def test_eval_function_without_inference_mode_fires_at_the_model_call():
    assert found("""
        def evaluate(model, loader):
            model.eval()
            for x in loader:
                out = model(x)
        """) == [(5, "autograd-in-eval")]


@pytest.mark.parametrize("src", [
    """
    import torch
    @torch.inference_mode()
    def evaluate(model, loader):
        model.eval()
        return [model(x) for x in loader]
    """,
    """
    import torch
    @torch.no_grad
    def predict(model, x):
        model.eval()
        return model(x)
    """,
    """
    import torch
    def score(model, x):
        model.eval()
        with torch.inference_mode():
            return model(x)
    """,
    """
    import torch
    def validate(model, x):
        model.eval()
        return model(x)
    def main(model, x):
        with torch.no_grad():
            validate(model, x)
    """,
    """
    def test(model, opt, x):  # test-time adaptation trains: autograd wanted
        model.eval()
        loss = model(x)
        loss.backward()
        opt.step()
    """,
])
def test_eval_function_already_without_autograd_or_training_is_quiet(src):
    assert found(src) == []


def test_eval_function_called_once_without_no_grad_still_fires():
    assert found("""
        import torch
        def validate(model, x):
            model.eval()
            return model(x)
        def main(model, x):
            with torch.no_grad():
                validate(model, x)
            validate(model, x)
        """) == [(5, "autograd-in-eval")]


def test_autograd_in_eval_through_a_helper_of_the_same_file():
    # Issue 24: the model call sits in a helper the evaluation loop calls.
    src = """
        import torch
        def run_batch(model, x):
            return model(x)
        def evaluate(model, loader):
            model.eval()
            for x in loader:
                out = run_batch(model, x)
        """
    assert found(src) == [(8, "autograd-in-eval")]
    findings, _ = check_text("snippet.py", textwrap.dedent(src))
    assert "through `run_batch`" in findings[0].message
    # Quiet when the helper runs with autograd off, or trains.
    assert found(src.replace("out = run_batch(model, x)",
                             "with torch.no_grad():\n                    out = run_batch(model, x)")
                 ) == []
    assert found(src.replace("def run_batch", "@torch.inference_mode()\n        def run_batch")
                 ) == []
    assert found(src.replace("return model(x)", "loss = model(x)\n            loss.backward()")
                 ) == []


def test_missing_model_eval_before_an_evaluation_loop():
    src = """
        import torch
        @torch.inference_mode()
        def evaluate(net, loader):
            return [net(x) for x in loader]
        """
    assert found(src) == [(4, "train-mode-in-eval")]
    assert found(src + "net = build().eval()\n") == []
    assert found(src + "m = AutoModel.from_pretrained('x')\n") == []


# Issue 36, item 5: what the code does with the model's results decides whether a
# function evaluates, never its name.
SCORES = """
    def {name}(model, loader):
        for x in loader:
            out = model(x)
            print(out.argmax(-1))
    """


@pytest.mark.parametrize("name", ["main", "evaluate", "run", "make_prediction", "train"])
def test_a_function_that_scores_a_model_is_found_whatever_its_name(name):
    # main() was missed and found once renamed evaluate(); `train` trains nothing.
    assert found(SCORES.format(name=name)) == [(2, "train-mode-in-eval"), (4, "autograd-in-eval")]


def test_main_that_scores_through_a_helper_of_the_same_file():
    assert found("""
        def run_batch(model, x):
            return model(x)
        def main(model, loader):
            for x in loader:
                print(run_batch(model, x).argmax(-1))
        """) == [(4, "train-mode-in-eval"), (6, "autograd-in-eval")]


@pytest.mark.parametrize("src", [
    # functorch's Lennard-Jones example: make_prediction is the training forward; the
    # loop at the module's top level backpropagates what it returns.
    """
    import torch
    from torch.func import jacrev, vmap
    def make_prediction(model, drs):
        norms = torch.norm(drs, dim=1).reshape(-1, 1)
        energies = model(norms)
        network_derivs = vmap(jacrev(model))(norms).squeeze(-1)
        return energies, -network_derivs * drs / norms
    for epoch in range(400):
        optimiser.zero_grad()
        (energies, forces) = make_prediction(model, drs)
        loss = loss_fn(training_energies, training_forces, energies, forces)
        loss.backward(retain_graph=True)
        optimiser.step()
    """,
    # A model loop whose outputs a caller of the same file backpropagates.
    """
    import torch
    def predict(model, xs):
        return torch.cat([model(x) for x in xs])
    def fit(model, opt, batches, ys):
        for xs, y in zip(batches, ys):
            out = predict(model, xs)
            loss = ((out - y) ** 2).mean()
            loss.backward()
            opt.step()
    """,
    # Losses gathered in a list and summed before the backward.
    """
    def predict(model, xs):
        return [model(x) for x in xs]
    def fit(model, xs):
        losses = []
        losses.append(predict(model, xs))
        total = sum(losses)
        total.backward()
    """,
    # The graph is used in the function itself: gradients of the input.
    """
    import torch
    def saliency(model, loader):
        for x in loader:
            x.requires_grad_(True)
            g, = torch.autograd.grad(model(x).sum(), x)
            print(g.abs().amax())
    """,
    # accelerate / Lightning spell the backward as a call with the loss.
    """
    def main(model, loader, accelerator):
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            accelerator.backward(loss)
    """,
    # A function the file never calls, running the model once: what its caller
    # does with the result is not in the file, and the name does not decide.
    """
    def predict(model, x):
        return model(x)
    """,
])
def test_a_training_forward_is_not_an_evaluation_whatever_its_name(src):
    assert found(src) == []


def test_a_nested_function_is_the_one_of_the_callers_scope():
    # timm's benchmark.py: each runner's run() defines its own _step. The train
    # runner's loop calls its own _step (which trains), not the inference one's;
    # resolved to both, the train benchmark was "evaluating through _step".
    src = """
        import torch
        class InferRunner:
            def run(self):
                self.model.eval()
                def _step():
                    return self.model(self.x)
                with torch.inference_mode():
                    for _ in range(3):
                        _step()
        class TrainRunner:
            def run(self):
                def _step():
                    self.optimizer.zero_grad()
                    self.loss(self.model(self.x), self.y).backward()
                    self.optimizer.step()
                for _ in range(3):
                    _step()
        """
    assert found(src) == []


def test_the_same_model_loop_evaluates_once_nothing_trains_with_its_outputs():
    src = """
        import torch
        def predict(model, xs):
            return torch.cat([model(x) for x in xs])
        def fit(model, opt, batches, ys):
            for xs, y in zip(batches, ys):
                out = predict(model, xs)
                loss = ((out - y) ** 2).mean()
                loss.backward()
        """
    assert found(src) == []
    # predict then evaluates, and so does fit's loop over it.
    assert found(src.replace("loss.backward()", "print(loss)")) == [
        (3, "train-mode-in-eval"), (4, "autograd-in-eval"), (5, "train-mode-in-eval")]


# -- Hugging Face keywords -------------------------------------------------------------
def test_use_cache_and_unread_outputs_in_forward_calls():
    assert found("""
        import torch
        @torch.inference_mode()
        def score(model, ids):
            a = model(ids, use_cache=True)
            b = model(ids, output_hidden_states=True, output_attentions=True)
            c = model(ids, use_cache=False)
            g = model.generate(ids, use_cache=True)
            return b.attentions
        """) == [(5, "kv-cache-in-scoring"), (6, "unused-outputs")]


# -- full-vocabulary logits ---------------------------------------------------------------
def test_log_softmax_then_gather_and_a_computed_slice():
    assert found("""
        import torch
        @torch.inference_mode()
        def score(lm, ids, start):
            logp = torch.log_softmax(lm(ids), dim=-1)
            picked = logp[0, :-1].gather(-1, ids[0, 1:, None])[:, 0]
            return picked[start:].sum()
        """) == [(5, "full-vocab-logits")]


@pytest.mark.parametrize("src", [
    """
    import torch
    @torch.inference_mode()
    def perplexity(lm, ids):  # every position is used
        logp = torch.log_softmax(lm(ids), dim=-1)
        return logp[:, :-1].gather(-1, ids[:, 1:, None]).mean()
    """,
    """
    import torch
    @torch.inference_mode()
    def score(lm, ids, rows, cols):  # positions selected before the normalisation
        h = lm.body(ids)[rows, cols]
        logp = torch.log_softmax(lm.head(h), dim=-1)
        picked = logp.gather(-1, ids[rows, None])
        return picked[rows]
    """,
])
def test_log_softmax_without_position_selection_afterwards_is_quiet(src):
    assert found(src) == []


# -- grouped GEMM, projections, layout, optimizer, attention --------------------------------
def test_loops_over_experts_heads_segments():
    assert found("""
        import torch
        class M:
            def forward(self, x):
                for i in range(self.num_experts):
                    x = x + self.experts[i](x)
                ys = [x @ w for w in self.head_weights]
                for layer in self.layers:
                    x = layer(x)
                for seg in segments:
                    x = torch.matmul(seg, x)
                for head in self.heads:
                    print(head)
                return x
        """) == [(5, "serial-small-gemm"), (10, "serial-small-gemm")]


def test_loop_variable_names_the_group_like_mixtral():
    assert found("""
        import torch
        from torch import nn
        class MoE:
            def forward(self, h, hit):
                for expert_idx in hit:
                    gate = nn.functional.linear(h, self.gate_up_proj[expert_idx])
                for head_i in range(4):
                    print(head_i)
        """) == [(6, "serial-small-gemm")]


def test_separate_projections_of_one_input():
    assert found("""
        class Attn:
            def forward(self, x, y):
                q, k, v = self.to_q(x), self.to_k(x), self.to_v(x)
                gate = self.w1(y)
                up = self.w3(y)
                a = self.q_proj(x)
                b = self.k_proj(y)
                return self.out(q)
        """) == [(4, "unfused-projections"), (5, "unfused-projections")]


def test_contiguous_after_transpose_only_in_forward():
    assert found("""
        class Block:
            def forward(self, x):
                y = x.transpose(1, 2).contiguous()
                z = x.permute(0, 2, 1).contiguous()
                return x.contiguous()
            def load(self, w):
                return w.t().contiguous()
        """) == [(4, "transpose-contiguous"), (5, "transpose-contiguous")]


def test_optimizer_without_foreach_or_fused_on_a_device():
    assert found("""
        import torch
        def make(model):
            model.cuda()
            a = torch.optim.AdamW(model.parameters(), lr=1e-3)
            b = torch.optim.SGD(model.parameters(), lr=0.1, fused=True)
            c = torch.optim.Adam(model.parameters(), foreach=True)
        """) == [(5, "optimizer-not-fused")]
    assert found("""
        import torch
        def make(model):
            return torch.optim.AdamW(model.parameters())
        """) == []


def test_hand_written_attention():
    assert found("""
        import math
        import torch
        def attend(q, k, v, mask):
            s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            s = s.masked_fill(mask, float("-inf"))
            p = torch.softmax(s, dim=-1)
            r = (q @ k.mT).softmax(-1)
            g = torch.softmax(q @ v, dim=-1)
            return p @ v
        """) == [(7, "manual-attention"), (8, "manual-attention")]


# -- suppression --------------------------------------------------------------------------
def test_suppression_on_the_line_or_alone_on_the_line_above():
    assert found("""
        def run(loader):
            for x in loader:
                a = x.item()  # fastenough: ignore[sync-in-loop]
                # fastenough: ignore[sync-in-loop, transfer-in-loop]
                b = x.item()
                c = x.item()  # fastenough: ignore[transfer-in-loop]
                d = x.item()  # fastenough: ignore
                e = x.item()
        """) == [(7, "sync-in-loop"), (9, "sync-in-loop")]


# -- false positives found by linting torch's own sources ------------------------------------
def test_torch_namespace_helpers_are_not_tensors():
    assert found("""
        import torch
        def options(kernels):
            for k in kernels:
                k.set("USE_TMA", bool(torch.xpu.is_available()))
                if torch.cuda.is_available():
                    pass
                if torch.is_grad_enabled():
                    pass
        """) == []


def test_module_paths_ending_in_model_are_not_model_calls():
    assert found("""
        import torch
        def evaluate_mapping(model):
            model.eval()
            torch.nn.parallel.DistributedDataParallel._set_params_for_model(model, [])
        """) == []


def test_unit_tests_named_test_in_test_files_are_not_evaluations():
    src = textwrap.dedent("""
        def test_forward(model, x):
            model.eval()
            return model(x)
        """)
    for path in ("pkg/distributed_test.py", "tests/models/check.py", "test_model.py"):
        findings, error = check_text(path, src)
        assert error is None and findings == [], path
    findings, _ = check_text("research/eval_tools.py", src)
    assert [(f.line, f.code) for f in findings] == [(4, "autograd-in-eval")]


def test_identity_tests_cpu_results_and_constructors_are_quiet():
    assert found("""
        import torch
        def run(items, old, lst):
            for t in items:
                if t is None or t is old:
                    continue
                m = torch.median(torch.tensor(lst)).item()
        def evaluate(x):
            for _ in range(3):
                net = Net()
        """) == []


def test_causal_lm_scoring_forward_without_use_cache_false():
    src = """
        import torch
        from transformers import AutoModelForCausalLM
        @torch.inference_mode()
        def score(model, ids, **kw):
            a = model(input_ids=ids)
            b = model(input_ids=ids, use_cache=False)
            c = model(input_ids=ids, **kw)
            return a, b, c
        def train_step(model, ids):
            model(input_ids=ids).loss.backward()
        """
    assert found(src) == [(6, "kv-cache-in-scoring")]
    assert found(src.replace("AutoModelForCausalLM", "AutoModel")) == []
