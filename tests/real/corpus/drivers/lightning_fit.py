"""A Lightning Trainer fit with a validation loop, written for fastenough's
tests in the style of Lightning's own documentation ("LightningModule" and
"Trainer" pages: training_step, validation_step, configure_optimizers,
trainer.fit(model, train_loader, val_loader)). Not vendored: nobody upstream
wrote this file. CPU, a tiny regression model, 2 epochs; the progress bar, the
logger, checkpointing and the model summary are off so that stdout is only
ours.

    python lightning_fit.py [--epochs 2]
"""

import argparse

import lightning as L
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class LitRegressor(L.LightningModule):
    def __init__(self, lr: float = 1e-2):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self(x), y)
        self.log("val_loss", loss)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)


def make_data(n: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    w = torch.linspace(-1, 1, 16)
    y = (x @ w + 0.1 * torch.randn(n, generator=g)).unsqueeze(1)
    return TensorDataset(x, y)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=2)
    args = ap.parse_args()
    L.seed_everything(0, verbose=False)
    train_loader = DataLoader(make_data(2048, 1), batch_size=32, shuffle=True)
    val_loader = DataLoader(make_data(512, 2), batch_size=64)
    model = LitRegressor()
    trainer = L.Trainer(max_epochs=args.epochs, accelerator="cpu", devices=1,
                        enable_progress_bar=False, logger=False, enable_checkpointing=False,
                        enable_model_summary=False, deterministic=True)
    trainer.fit(model, train_loader, val_loader)
    metrics = {k: round(float(v), 4) for k, v in sorted(trainer.callback_metrics.items())}
    print("epochs", trainer.current_epoch, "steps", trainer.global_step, metrics)


if __name__ == "__main__":
    main()
