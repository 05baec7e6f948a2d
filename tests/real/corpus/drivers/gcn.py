"""A two-layer GCN on a random graph with PyTorch Geometric, written for
fastenough's tests in the style of PyG's own examples/gcn.py: a Data object
with train/test masks, GCNConv layers, and per epoch one optimizer step
(train()) and one evaluation forward under torch.no_grad() (test()). Not
vendored: nobody upstream wrote this file. The graph is random (a stochastic
block model with feature signal), so that it needs no download; CPU.

    python gcn.py [--epochs 60]
"""

import argparse

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import GCNConv
from torch_geometric.utils import stochastic_blockmodel_graph


class GCN(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden_channels, cached=True)
        self.conv2 = GCNConv(hidden_channels, out_channels, cached=True)

    def forward(self, x, edge_index):
        x = F.dropout(x, p=0.5, training=self.training)
        x = self.conv1(x, edge_index).relu()
        x = F.dropout(x, p=0.5, training=self.training)
        return self.conv2(x, edge_index)


def random_graph(blocks: int = 4, per_block: int = 200, features: int = 64) -> Data:
    edge_index = stochastic_blockmodel_graph([per_block] * blocks,
                                             torch.full((blocks, blocks), 0.002)
                                             + 0.03 * torch.eye(blocks))
    y = torch.arange(blocks).repeat_interleave(per_block)
    centers = torch.randn(blocks, features)
    x = centers[y] + 2.0 * torch.randn(y.numel(), features)
    perm = torch.randperm(y.numel())
    train_mask = torch.zeros(y.numel(), dtype=torch.bool)
    train_mask[perm[: y.numel() // 5]] = True
    test_mask = ~train_mask
    return Data(x=x, edge_index=edge_index, y=y, train_mask=train_mask, test_mask=test_mask)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=60)
    args = ap.parse_args()
    torch.manual_seed(0)
    data = random_graph()
    model = GCN(data.num_features, 32, int(data.y.max()) + 1)
    optimizer = torch.optim.Adam([
        dict(params=model.conv1.parameters(), weight_decay=5e-4),
        dict(params=model.conv2.parameters(), weight_decay=0),
    ], lr=0.01)

    def train():
        model.train()
        optimizer.zero_grad()
        out = model(data.x, data.edge_index)
        loss = F.cross_entropy(out[data.train_mask], data.y[data.train_mask])
        loss.backward()
        optimizer.step()
        return float(loss)

    @torch.no_grad()
    def test():
        model.eval()
        pred = model(data.x, data.edge_index).argmax(dim=-1)
        accs = []
        for mask in [data.train_mask, data.test_mask]:
            accs.append(int((pred[mask] == data.y[mask]).sum()) / int(mask.sum()))
        return accs

    print(data)
    for epoch in range(1, args.epochs + 1):
        loss = train()
        train_acc, test_acc = test()
        if epoch % 10 == 0:
            print(f"Epoch: {epoch:03d}, Loss: {loss:.4f}, Train: {train_acc:.4f}, "
                  f"Test: {test_acc:.4f}")


if __name__ == "__main__":
    main()
