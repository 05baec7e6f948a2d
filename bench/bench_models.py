"""The CPU model loops the overhead benchmarks time (bench_agent_inprocess.py,
bench_run_overhead.py). Imports torch only: a plain run of a benchmark workload
must not load any part of fastenough.

  mlp   6 MLP blocks, batch 64: ~3.5 ms a step on one thread
        (mlp-small: batch 2, ~0.3 ms; mlp-large: batch 576, ~30 ms)
  lm    a small transformer scorer over 8 x 64 token ids (log-softmax + gather)
  tiny  one 8x8 Linear on 4 rows: ~8 us a step, nearly all model-call overhead
"""

from __future__ import annotations

import torch
from torch import nn

MODELS = ("mlp", "mlp-small", "mlp-large", "lm", "tiny")
# The same 6-block MLP at three step sizes (one thread): ~0.3 ms, ~3.5 ms, ~30 ms.
MLP_BATCH = {"mlp-small": 2, "mlp": 64, "mlp-large": 576}


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(256)
        self.fc1 = nn.Linear(256, 512)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(512, 256)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.ln(x))))


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 1000, d: int = 128, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        logits = self.head(self.encoder(self.embed(ids)))
        # The score of each next token: log-probability of the token that follows.
        logp = logits[:, :-1].log_softmax(-1)
        return logp.gather(-1, ids[:, 1:, None]).squeeze(-1).sum(-1)


def make(model: str):
    """The model (in eval mode) and its input; one thread, fixed seed."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    if model in MLP_BATCH:
        return nn.Sequential(*[Block() for _ in range(6)], nn.Linear(256, 16)).eval(), \
            torch.randn(MLP_BATCH[model], 256)
    if model == "lm":
        return TinyLM().eval(), torch.randint(0, 1000, (8, 64))
    if model == "tiny":
        return nn.Sequential(nn.Linear(8, 8)).eval(), torch.randn(4, 8)
    raise ValueError(f"unknown model {model!r}; one of {', '.join(MODELS)}")
