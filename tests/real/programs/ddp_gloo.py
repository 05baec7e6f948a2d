"""A torchrun data-parallel training job on the CPU (gloo): DistributedSampler,
DDP, a few epochs, rank 0 prints the loss and saves a state_dict checkpoint.

    torchrun --nproc_per_node=2 ddp_gloo.py [--epochs 2] [--save ddp.pt]
"""

from __future__ import annotations

import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--save", default="ddp.pt")
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x = torch.randn(2048, 32)
    y = (x[:, :4].sum(1, keepdim=True) > 0).float()
    ds = TensorDataset(x, y)
    sampler = DistributedSampler(ds, shuffle=True, seed=0)
    loader = DataLoader(ds, batch_size=32, sampler=sampler)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(),
                                    torch.nn.Linear(128, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(())
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.detach()
        dist.all_reduce(total)
        if rank == 0:
            mean = total.item() / (len(loader) * dist.get_world_size())
            print(f"epoch {epoch} mean loss {mean:.4f}")
    if rank == 0:
        torch.save(model.module.state_dict(), args.save)
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        print("world", int(os.environ["WORLD_SIZE"]), "done")


if __name__ == "__main__":
    main()
