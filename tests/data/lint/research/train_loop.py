"""A short fine-tuning run with periodic validation (lint fixture)."""

import torch
from torch import nn
from torch.utils.data import DataLoader


def make_loaders(train_set, val_set):
    train = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=4, pin_memory=True)
    val = DataLoader(val_set, batch_size=64)
    return train, val


@torch.no_grad()
def validate(model, loader, device):
    total = torch.zeros((), device=device)
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        total += nn.functional.cross_entropy(model(x), y, reduction="sum")
    return total.item() / len(loader.dataset)


def log_step(step, loss):
    if step % 100 == 0:
        print(f"step {step} loss {loss.item():.4f}")


def train(model, train_loader, val_loader, device, epochs: int = 1):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    model.train()
    for epoch in range(epochs):
        for step, (x, y) in enumerate(train_loader):
            x, y = x.cuda(), y.cuda()
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            log_step(step, loss)
            torch.cuda.empty_cache()
        model.eval()
        print(epoch, validate(model, val_loader, device))
        model.train()
    torch.cuda.synchronize()
