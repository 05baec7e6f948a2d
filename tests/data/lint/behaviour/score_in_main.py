"""Scores a trained classifier from main() (lint fixture, issue 36 item 5).

Nothing here is named eval/evaluate/score: main() evaluates because of what it
does, a loop of model calls whose outputs nothing backpropagates, with autograd
on and no model.eval() anywhere in the file.
"""

import torch
from torch import nn


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.1), nn.ReLU(), nn.Linear(32, 4))


def main():
    model = build()
    model.load_state_dict(torch.load("classifier.pt"))
    data = torch.load("test_set.pt")
    correct = 0
    for x, y in data:
        logits = model(x)
        correct += (logits.argmax(-1) == y).sum()
    print("accuracy", correct / len(data))


if __name__ == "__main__":
    main()
