"""A regression MLP trained with torch.func only, written for fastenough's
tests in the style of the functorch tutorials (pytorch/tutorials,
intermediate_source/per_sample_grads.py and neural_tangent_kernels.py): the
parameters live in a dict, `functional_call` runs the module with them,
`torch.func.grad` of the loss gives the gradients and a hand-written SGD
update makes the next dict; no loss.backward(), no torch.optim. An in-memory
TensorDataset feeds a DataLoader of 32 rows a batch. Then per-sample gradient
norms of the last batch with vmap(grad(...)), and a test loss outside any
transform. CPU, deterministic.

    python func_sgd.py [--epochs 3] [--rows 4096]
"""

import argparse

import torch
from torch import nn
from torch.func import functional_call, grad, vmap
from torch.utils.data import DataLoader, TensorDataset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=4096)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 1))
    params = {k: v.detach() for k, v in model.named_parameters()}
    w = torch.randn(64, 1)
    x_all = torch.randn(args.rows, 64)
    data = TensorDataset(x_all, x_all @ w + 0.1 * torch.randn(args.rows, 1))

    def loss_fn(p, x, y):
        return ((functional_call(model, p, (x,)) - y) ** 2).mean()

    def sample_loss(p, x, y):
        return loss_fn(p, x.unsqueeze(0), y.unsqueeze(0))

    grad_fn = grad(loss_fn)
    for epoch in range(args.epochs):
        for x, y in DataLoader(data, batch_size=32, shuffle=True):
            grads = grad_fn(params, x, y)
            params = {k: v - 1e-3 * grads[k] for k, v in params.items()}
        print(f"epoch {epoch} loss {loss_fn(params, *data.tensors).item():.4f}")
    per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, x, y)
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()]).sum(0)
    print(f"per-sample gradient norm, mean {norms.mean().item():.4f}")


if __name__ == "__main__":
    main()
