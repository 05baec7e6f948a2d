"""padding-waste from attention masks, checked exactly."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from checks_helpers import findings, run_checks  # noqa: E402


class Masked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 8)

    def forward(self, input_ids, attention_mask=None):
        return (self.emb(input_ids) * attention_mask[..., None]).sum(1)


def batch(lengths, width):
    mask = torch.zeros(len(lengths), width, dtype=torch.long)
    for r, n in enumerate(lengths):
        mask[r, :n] = 1
    return torch.ones(len(lengths), width, dtype=torch.long) * mask, mask


def run(batches):
    model = Masked().eval()

    def body(reg):
        with torch.inference_mode():
            for lengths, width in batches:
                ids, mask = batch(lengths, width)
                model(ids, attention_mask=mask)  # PAD-CALL

    return body


def test_padded_batches(tmp_path):
    # Width 8: [8, 2] and [3, 7] -> 32 positions, 20 real: 37.5 % padding.
    # Sorted 2,3 | 7,8 padded to 3 and 8: 6 + 16 = 22 positions.
    doc = run_checks(tmp_path, run([([8, 2], 8), ([3, 7], 8)]))
    [f] = findings(doc, "padding-waste")
    ev = f["evidence"]
    assert (ev["positions"], ev["real_tokens"], ev["bucketed_positions"]) == (32, 20, 22)
    assert ev["padded_share"] == pytest.approx(12 / 32, abs=1e-12)
    # A bound (issue 37 item 1), not the positions' share (10/32, an
    # estimate attention could beat): squares of the padded widths 4 x 64 =
    # 256 as run, 2 x 9 + 2 x 64 = 146 bucketed; the larger share is 110/256.
    assert (ev["width_squares"], ev["bucketed_width_squares"]) == (256, 146)
    assert ev["bucketed_saving_share"] == pytest.approx(10 / 32, abs=1e-12)
    assert ev["bucketed_square_saving_share"] == pytest.approx(110 / 256, abs=1e-12)
    assert f["saving"]["share_of_step"] == pytest.approx(110 / 256, abs=1e-12)
    assert f["saving"]["upper_bound"] is True
    assert ev["saving_model"].startswith(
        "step time grows at most with positions and with the square of the padded width")
    assert ev["saving_basis"].startswith("derived")
    assert ev["lengths_from"] == "attention_mask"
    assert f["where"][0]["function"] == "body"


def test_lengths_kept_in_a_few_chunks_not_a_tensor_per_forward(tmp_path, monkeypatch):
    # One small tensor per forward, kept to the end, fragmented the heap beside
    # the steps' activations (word-language-model LSTM: +50 to 80 MiB of peak
    # RSS). Chunks of 7 rows hold two 3-row batches each: 10 batches, 5 chunks,
    # and the lengths read back exactly across the chunk boundaries.
    from fastenough.agent.checks import padding

    monkeypatch.setattr(padding, "CHUNK_ROWS", 7)
    batches = [([1 + i % 8, 8, 2 + i % 5], 8) for i in range(10)]
    held = {}

    def body(reg):
        run(batches)(reg)
        held["chunks"] = [len(c) for c in reg.padding._chunks.values()]
        held["batches"] = [(width, rows) for width, *_, rows in reg.padding.batches]

    doc = run_checks(tmp_path, body)
    assert held["chunks"] == [5]
    assert held["batches"] == [(8, 3)] * 10
    pad = doc["checks"]["padding"]
    real = sum(sum(lengths) for lengths, _ in batches)
    assert (pad["positions"], pad["real_tokens"]) == (10 * 3 * 8, real)


def test_lengths_kept_across_inference_mode_and_training(tmp_path):
    # sentence-transformers' fit: the first forwards ran under inference_mode
    # and the lengths' chunk made there could not be written in training
    # ("Inplace update to inference tensor outside InferenceMode"): the checks
    # stopped and SimCSE's padding went unreported.
    model = Masked()

    def body(reg):
        with torch.inference_mode():
            model(*batch([8, 2], 8))
        ids, mask = batch([3, 7], 8)
        model(ids, attention_mask=mask).sum().backward()

    doc = run_checks(tmp_path, body)
    pad = doc["checks"]["padding"]
    assert (pad["positions"], pad["real_tokens"]) == (32, 20)


def test_bucketed_batches_not_flagged(tmp_path):
    # The same rows bucketed: [2, 3] padded to 3, [7, 8] to 8: 22 positions, 20 real.
    doc = run_checks(tmp_path, run([([2, 3], 3), ([7, 8], 8)]))
    assert findings(doc, "padding-waste") == []
    pad = doc["checks"]["padding"]
    assert (pad["positions"], pad["real_tokens"]) == (22, 20)


def test_lengths_from_right_padded_ids(tmp_path):
    emb = torch.nn.Embedding(50, 4)

    def body(reg):
        with torch.inference_mode():
            for n in (2, 5, 3, 8):
                ids = torch.zeros(1, 8, dtype=torch.long)
                ids[0, :n] = 7
                emb(ids)

    doc = run_checks(tmp_path, body)
    [f] = findings(doc, "padding-waste")
    assert f["evidence"]["real_tokens"] == 18 and f["evidence"]["positions"] == 32


class Features(torch.nn.Module):
    """A sentence-transformers-style root module: one dict of features."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 8)

    def forward(self, features):
        mask = features["attention_mask"]
        return (self.emb(features["input_ids"]) * mask[..., None]).sum(1)


def test_lengths_from_a_dict_of_features(tmp_path):
    # sentence-transformers calls its model with one dict (SimCSE's fit, issue
    # 28: its ~24% padding was not seen). The same rows as test_padded_batches.
    model = Features().eval()

    def body(reg):
        with torch.inference_mode():
            for lengths, width in (([8, 2], 8), ([3, 7], 8)):
                ids, mask = batch(lengths, width)
                model({"input_ids": ids, "attention_mask": mask})

    doc = run_checks(tmp_path, body)
    [f] = findings(doc, "padding-waste")
    ev = f["evidence"]
    assert (ev["positions"], ev["real_tokens"], ev["bucketed_positions"]) == (32, 20, 22)
    assert ev["lengths_from"] == "attention_mask"


class PairLoss(torch.nn.Module):
    """A sentence-transformers loss as the root module: a list of feature dicts."""

    def __init__(self):
        super().__init__()
        self.model = Features()

    def forward(self, sentence_features, labels=None):
        return sum(self.model(f).sum() for f in sentence_features)


def test_lengths_from_a_list_of_feature_dicts(tmp_path):
    # MultipleNegativesRankingLoss(features=[anchors, positives]): both batches
    # count, each with its own width.
    loss = PairLoss()

    def body(reg):
        for lengths, width in (([8, 2], 8), ([3, 7], 8)):
            ids, mask = batch(lengths, width)
            loss([{"input_ids": ids, "attention_mask": mask},
                  {"input_ids": ids, "attention_mask": mask}], None).backward()

    doc = run_checks(tmp_path, body)
    pad = doc["checks"]["padding"]
    assert (pad["positions"], pad["real_tokens"]) == (64, 40)
