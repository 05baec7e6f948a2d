"""Training with an exponential moving average of the weights, EMA style: the
average model is made by copy.deepcopy(model) mid-run (after a warm start),
updated every step, and both are evaluated at the end of each epoch.

    python ema_deepcopy.py [--epochs 3]
"""

from __future__ import annotations

import argparse
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def evaluate(model, loader) -> float:
    model.eval()
    correct = 0
    with torch.inference_mode():
        for xb, yb in loader:
            correct += int((model(xb).argmax(1) == yb).sum())
    return correct / len(loader.dataset)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    w = torch.randn(32, 5)
    x = torch.randn(3072, 32)
    y = (x @ w).argmax(1)
    train = DataLoader(TensorDataset(x[:2560], y[:2560]), batch_size=64, shuffle=True)
    val = DataLoader(TensorDataset(x[2560:], y[2560:]), batch_size=256)
    model = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Dropout(0.1), nn.Linear(256, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ema, step = None, 0
    for epoch in range(args.epochs):
        model.train()
        for xb, yb in train:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step == 20:
                ema = copy.deepcopy(model)  # the EMA starts from the warm model
                ema.requires_grad_(False)
            elif ema is not None:
                with torch.no_grad():
                    for pe, pm in zip(ema.parameters(), model.parameters(), strict=True):
                        pe.mul_(0.98).add_(pm, alpha=0.02)
        print(f"epoch {epoch} loss {loss.item():.4f} acc {evaluate(model, val):.4f} "
              f"ema acc {evaluate(ema, val):.4f}")


if __name__ == "__main__":
    main()
