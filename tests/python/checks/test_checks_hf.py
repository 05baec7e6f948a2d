"""kv-cache-in-scoring, unused-outputs and full-vocab-logits on a tiny Hugging
Face causal LM built from a config (no download)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from checks_helpers import findings, line_of, run_checks  # noqa: E402


@pytest.fixture(scope="module")
def lm():
    cfg = transformers.LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64,
                                   num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=4)
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(cfg).eval()


def ids():
    torch.manual_seed(1)
    return torch.randint(1, 128, (2, 12))


def score(model, steps=4, **kw):
    x = ids()
    out_scores = []
    with torch.inference_mode():
        for _ in range(steps):
            out = model(input_ids=x, **kw)  # SCORE-CALL
            out_scores.append(out.logits[:, :-1].log_softmax(-1).sum())
    return out_scores


def test_kv_cache_built_and_dropped(tmp_path, lm):
    doc = run_checks(tmp_path, lambda reg: score(lm))  # use_cache from the config
    [f] = findings(doc, "kv-cache-in-scoring")
    assert f["evidence"]["forwards_with_cache"] == 4
    assert f["evidence"]["cache_reused"] == 0
    # 2 layers x (keys + values) x [2, 4 heads, 12, 8] fp32
    assert f["evidence"]["cache_bytes_per_forward"] == 2 * 2 * (2 * 4 * 12 * 8) * 4
    assert f["where"][0]["line"] == line_of(score, "SCORE-CALL")
    assert findings(doc, "full-vocab-logits") == []  # all positions but one are read


def test_no_kv_finding_with_use_cache_false(tmp_path, lm):
    doc = run_checks(tmp_path, lambda reg: score(lm, use_cache=False))
    assert findings(doc, "kv-cache-in-scoring") == []
    assert findings(doc, "unused-outputs") == []


def test_no_kv_finding_when_cache_is_passed_back(tmp_path, lm):
    def generate(reg):
        with torch.inference_mode():
            out = lm(input_ids=ids())
            nxt = out.logits[:, -1:].argmax(-1)
            key = "cache" if "cache" in out else "past_key_values"  # transformers 5 / 4
            for _ in range(3):
                out = lm(input_ids=nxt, **{key: out[key]})
                nxt = out.logits[:, -1:].argmax(-1)

    doc = run_checks(tmp_path, generate)
    assert findings(doc, "kv-cache-in-scoring") == []


def test_hidden_states_requested_and_dropped(tmp_path, lm):
    doc = run_checks(tmp_path, lambda reg: score(lm, use_cache=False, output_hidden_states=True))
    [f] = findings(doc, "unused-outputs")
    assert f["evidence"]["hidden_states_requested"] == 4
    assert f["evidence"]["hidden_states_read"] == 0
    # embeddings + 2 layers (the last one normed), each [2, 12, 32] fp32
    assert f["evidence"]["unused_bytes_per_forward"] == 3 * 2 * 12 * 32 * 4

    def reads(reg):
        with torch.inference_mode():
            for _ in range(3):
                out = lm(input_ids=ids(), use_cache=False, output_hidden_states=True)
                out.hidden_states[-1].mean()
    doc = run_checks(tmp_path, reads)
    assert findings(doc, "unused-outputs") == []


def last_position(model, steps=4, **kw):
    x = ids()
    with torch.inference_mode():
        for _ in range(steps):
            out = model(input_ids=x, use_cache=False, **kw)  # LAST-CALL
            out.logits[:, -1].log_softmax(-1).max(-1)


def test_full_vocab_logits_when_only_last_position_read(tmp_path, lm):
    doc = run_checks(tmp_path, lambda reg: last_position(lm), {"probe": True})
    [f] = findings(doc, "full-vocab-logits")
    assert f["evidence"]["positions"] == 2 * 12  # (row, position) pairs projected
    assert f["evidence"]["positions_read"] == 2
    assert f["evidence"]["vocab"] == 128
    assert f["evidence"]["unread_logits_bytes_per_forward"] == 2 * 11 * 128 * 4
    assert f["where"][0]["line"] == line_of(last_position, "LAST-CALL")
    assert f["saving"]["per_step_ns"] is not None  # probe: logits_to_keep=1 timed


def test_no_full_vocab_with_logits_to_keep(tmp_path, lm):
    doc = run_checks(tmp_path, lambda reg: last_position(lm, logits_to_keep=1))
    assert findings(doc, "full-vocab-logits") == []


def test_kv_cache_in_scoring_found_beside_a_generation(tmp_path, lm):
    # One call site scores (a cache built and dropped every time), another
    # generates (the cache passed back): the scoring site's waste is found.
    def program(reg):
        score(lm, steps=6)
        with torch.inference_mode():
            lm.generate(ids(), max_new_tokens=4, do_sample=False, pad_token_id=0)

    doc = run_checks(tmp_path, program)
    [f] = findings(doc, "kv-cache-in-scoring")
    assert f["evidence"]["forwards_with_cache"] == 6
    assert f["where"][0]["line"] == line_of(score, "SCORE-CALL")


def test_full_vocab_logits_counts_the_projection(tmp_path):
    # A generation-style loop reads the last position of logits the model's own
    # lm_head computed for all of them: the saving counts the projection, timed
    # on the model's forwards, not only the ops after the forward (issue 28).
    cfg = transformers.LlamaConfig(vocab_size=4096, hidden_size=64, intermediate_size=128,
                                   num_hidden_layers=1, num_attention_heads=4,
                                   num_key_value_heads=4)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).eval()

    def program(reg):
        ids = torch.randint(1, 4096, (2, 48))
        with torch.inference_mode():
            for _ in range(12):
                out = model(input_ids=ids, use_cache=False)
                out.logits[:, -1].argmax(-1).tolist()  # LAST-POSITION

    doc = run_checks(tmp_path, program)
    [f] = findings(doc, "full-vocab-logits")
    ev = f["evidence"]
    assert ev["positions"] == 96 and ev["positions_read"] == 2
    assert ev["projection_ns_per_forward"] > 0, ev
    assert ev["probe_full_ns"] >= ev["projection_ns_per_forward"]
    assert f["saving"]["per_step_ns"] > 0


def loglikelihoods(model, requests, batch=4):
    """lm-evaluation-harness's HFLM._loglikelihood_tokens, causal case: a batch
    of (context, continuation) token lists padded on the right, log_softmax over
    every position, then per request a slice of its continuation's positions,
    the greedy check and the gather of its tokens."""
    res = []
    for b in range(0, len(requests), batch):
        chunk = requests[b:b + batch]
        inps = [torch.tensor((ctx + cont)[:-1]) for ctx, cont in chunk]
        width = max(len(x) for x in inps)
        batched = torch.stack([torch.nn.functional.pad(x, (0, width - len(x))) for x in inps])
        with torch.no_grad():
            multi_logits = torch.nn.functional.log_softmax(
                model(batched, use_cache=False).logits, dim=-1)  # LOGLIK-CALL
        for (_, cont), logits, inp in zip(chunk, multi_logits, inps, strict=True):
            logits = logits[len(inp) - len(cont):len(inp)].unsqueeze(0)
            greedy = logits.argmax(dim=-1)
            cont_toks = torch.tensor(cont).unsqueeze(0)
            max_equal = (greedy == cont_toks).all()
            logits = torch.gather(logits, 2, cont_toks.unsqueeze(-1)).squeeze(-1)
            res.append((float(logits.sum()), bool(max_equal)))
    return res


def test_full_vocab_logits_in_lm_eval_loglikelihood(tmp_path, lm):
    # Issue 37, item 8: iterating over the normalised batch is unbind(0), which
    # read every position before. Batches of 4 requests of 9-12 context tokens
    # and 1, 2, 1, 2 continuation tokens, padded to 12 + 2 - 1 = 13 inputs: 6
    # of 4 x 13 (row, position) pairs are read.
    reqs = [([1 + i] * (9 + i % 4), [5] * (1 + i % 2)) for i in range(8)]
    doc = run_checks(tmp_path, lambda reg: [loglikelihoods(lm, reqs) for _ in range(3)])
    [f] = findings(doc, "full-vocab-logits")
    ev = f["evidence"]
    assert (ev["positions"], ev["positions_read"]) == (4 * 13, 1 + 2 + 1 + 2), ev
    assert f["where"][0]["line"] == line_of(loglikelihoods, "LOGLIK-CALL")


def test_no_full_vocab_when_every_row_is_read_whole(tmp_path, lm):
    # The same iteration over rows, each row's positions all read (a perplexity):
    # nothing to save.
    def perplexity(reg):
        with torch.no_grad():
            for _ in range(4):
                logp = torch.nn.functional.log_softmax(lm(ids(), use_cache=False).logits, -1)
                [float(row.max(-1).values.sum()) for row in logp]

    doc = run_checks(tmp_path, perplexity)
    assert findings(doc, "full-vocab-logits") == []



def test_full_vocab_reads_count_when_ids_are_reused(tmp_path, lm):
    # lm-eval's loop rebinds each row's slice (to its unsqueeze): the freed
    # slice's id often goes to the next row's, whose entry replaced the read
    # one, and a read was lost (5 of 6 pairs in 2 of 12 runs before). Runs
    # with the heap in different states: every one reads the 6.
    reqs = [([1 + i] * (9 + i % 4), [5] * (1 + i % 2)) for i in range(8)]
    junk, read = [], []
    for k in range(12):
        junk.append([torch.zeros(k) for _ in range(3 * k)])  # another heap state
        doc = run_checks(tmp_path / str(k), lambda reg: [loglikelihoods(lm, reqs)
                                                         for _ in range(3)])
        read += [f["evidence"]["positions_read"] for f in findings(doc, "full-vocab-logits")]
    assert read == [6] * 12
