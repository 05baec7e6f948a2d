"""Save a whole-model checkpoint mid-training (torch.save(model)), and its
state_dict, reload both, and check they give the same outputs as the live
model; with --load, only load a checkpoint written earlier (in another
process) and print its outputs on the fixed probe batch.

    python checkpoint_roundtrip.py --dir DIR          # train, save, reload
    python checkpoint_roundtrip.py --dir DIR --load   # just load and print
"""

from __future__ import annotations

import argparse
import os

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Dropout(0.1),
                                  nn.Linear(256, 256), nn.GELU())
        self.norm = nn.LayerNorm(256)
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.norm(self.body(x)))


def probe_batch() -> torch.Tensor:
    return torch.randn(8, 64, generator=torch.Generator().manual_seed(123))


def digest(model) -> str:
    model.eval()
    with torch.no_grad():
        out = model(probe_batch())
    return " ".join(f"{v:.6f}" for v in out.sum(1).tolist())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=".")
    ap.add_argument("--load", action="store_true")
    args = ap.parse_args()
    whole = os.path.join(args.dir, "model_whole.pt")
    sd = os.path.join(args.dir, "model_state.pt")
    if args.load:
        print("whole", digest(torch.load(whole, weights_only=False)))
        m = Classifier()
        m.load_state_dict(torch.load(sd))
        print("state", digest(m))
        return
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(512, 64), torch.randint(0, 10, (512,))
    for epoch in range(3):
        model.train()
        for i in range(0, 512, 32):
            loss = nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.save(model, whole)  # whole-model checkpoint, every epoch
        torch.save(model.state_dict(), sd)
        print(f"epoch {epoch} loss {loss.item():.4f}")
        model.train()
    live = digest(model)
    again = torch.load(whole, weights_only=False)
    fresh = Classifier()
    fresh.load_state_dict(torch.load(sd))
    print("live ", live)
    print("whole", digest(again))
    print("state", digest(fresh))
    assert digest(again) == live == digest(fresh), "a reloaded checkpoint differs"


if __name__ == "__main__":
    main()
