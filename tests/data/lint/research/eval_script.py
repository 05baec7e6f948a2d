"""Evaluate an image classifier on a held-out split (fixture for fastenough lint)."""

import argparse

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def build_model(num_classes: int) -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(256, num_classes))


def accuracy(logits, labels):
    return (logits.argmax(-1) == labels).float().mean().item()


def evaluate(model, loader, device):
    correct = 0.0
    seen = 0
    for images, labels in loader:
        images = images.to(device)
        labels = labels.to(device, non_blocking=True)
        logits = model(images)
        correct += accuracy(logits, labels) * len(labels)
        seen += len(labels)
        if torch.isnan(logits).any():
            print("nan logits")
    return correct / seen


def calibration_curve(probs: np.ndarray, bins: int = 10):
    edges = np.linspace(0, 1, bins + 1)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        mask = (probs >= lo) & (probs < hi)
        out.append(mask.mean().item())
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    args = p.parse_args()
    device = torch.device("cuda")
    data = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
    loader = DataLoader(data, batch_size=256)
    model = build_model(10).to(device)
    model.load_state_dict(torch.load(args.ckpt))
    acc = evaluate(model, loader, device)
    print(f"accuracy {acc:.4f}")
    for temperature in [0.5, 1.0, 2.0]:
        print(temperature, float(temperature) * 2)


if __name__ == "__main__":
    main()
