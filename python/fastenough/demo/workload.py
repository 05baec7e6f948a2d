"""The bundled demo: a small transformer language-model scorer on synthetic data.

Each item is (context, continuation) token ids; its score is the sum of the
log-probabilities of the continuation tokens, as an evaluation harness computes
for multiple-choice answers. Two paths compute the same scores:

  wasteful (default)             fixed (--fixed)
  autograd left on               torch.inference_mode()
  one .item() per step           scores stay on the device, one .tolist() at the end
  batch 1                        batches of 8 items of similar length
  padding to a fixed length 64   padding to the longest item of the batch
  Python loop over 8 experts     one einsum over the stacked expert weights
  a blocking copy of each input  a pinned batch copied with non_blocking=True
  log_softmax over the full      log_softmax only at the continuation positions
  vocabulary at every position

Run it alone with `python -m fastenough.demo.workload [--fixed] [--out scores.json]`,
or under the agent with `fastenough demo [--fixed]`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import torch
from torch import nn

import fastenough

VOCAB = 8000
D_MODEL = 128
N_LAYERS = 2
N_HEADS = 4
N_EXPERTS = 8
D_EXPERT = 128
MAX_LEN = 64
FIXED_BATCH = 8
DEFAULT_ITEMS = 128
# Per-item agreement between the two paths, fixed before measuring: fp32 sums of at
# most 8 log-probabilities of magnitude ~9 differ only in summation order.
TOLERANCE_ABS = 1e-4


class Expert(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(D_MODEL, D_EXPERT)
        self.fc2 = nn.Linear(D_EXPERT, D_MODEL)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class MoE(nn.Module):
    """Soft mixture of experts: every expert sees every token, weighted by the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = nn.Linear(D_MODEL, N_EXPERTS)
        self.experts = nn.ModuleList(Expert() for _ in range(N_EXPERTS))
        self.batched = False

    def stack(self) -> None:
        # Same weights, stacked once so that all experts run as one batched matmul.
        self.w1 = torch.stack([e.fc1.weight.t() for e in self.experts]).detach()  # [E, D, F]
        self.b1 = torch.stack([e.fc1.bias for e in self.experts]).detach()  # [E, F]
        self.w2 = torch.stack([e.fc2.weight.t() for e in self.experts]).detach()  # [E, F, D]
        self.b2 = torch.stack([e.fc2.bias for e in self.experts]).detach()  # [E, D]
        self.batched = True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = torch.softmax(self.gate(x), dim=-1)  # [..., E]
        if not self.batched:
            out = torch.zeros_like(x)
            for e, expert in enumerate(self.experts):
                out = out + g[..., e : e + 1] * expert(x)
            return out
        h = torch.nn.functional.gelu(torch.einsum("...d,edf->...ef", x, self.w1) + self.b1)
        y = torch.einsum("...ef,efd->...ed", h, self.w2) + self.b2  # [..., E, D]
        return torch.einsum("...e,...ed->...d", g, y)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(D_MODEL)
        self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL)
        self.proj = nn.Linear(D_MODEL, D_MODEL)
        self.ln2 = nn.LayerNorm(D_MODEL)
        self.moe = MoE()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        hd = d // N_HEADS
        q, k, v = (z.view(b, t, N_HEADS, hd).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        # Both paths keep this hand-written attention (scaled_dot_product_attention would
        # fuse it): the demo compares the wastes in the table above, not this one.
        # fastenough: ignore[manual-attention]
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.moe(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(MAX_LEN, D_MODEL)
        self.blocks = nn.ModuleList(Block() for _ in range(N_LAYERS))
        self.ln = nn.LayerNorm(D_MODEL)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Hidden states [B, T, D]; right padding is harmless under the causal mask."""
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.ln(x)

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        # Tied output head, scaled so that logits have unit spread like a trained LM's.
        return (h @ self.tok.weight.t()) / math.sqrt(D_MODEL)


def make_items(n: int, seed: int = 1) -> list[tuple[list[int], list[int]]]:
    """Synthetic tokenised items: context of 8..56 tokens, continuation of 1..8."""
    g = torch.Generator().manual_seed(seed)
    items = []
    for _ in range(n):
        ctx_len = int(torch.randint(8, 57, (1,), generator=g))
        cont_len = int(torch.randint(1, 9, (1,), generator=g))
        ids = torch.randint(1, VOCAB, (ctx_len + cont_len,), generator=g).tolist()
        items.append((ids[:ctx_len], ids[ctx_len:]))
    return items


def build_model(device: torch.device) -> TinyLM:
    torch.manual_seed(0)
    model = TinyLM()
    return model.to(device).eval()


def score_wasteful(model: TinyLM, items, device) -> list[float]:
    scores = []
    for ctx, cont in items:
        ids = torch.zeros(1, MAX_LEN, dtype=torch.long)  # pad every item to 64
        seq = ctx + cont
        ids[0, : len(seq)] = torch.tensor(seq)
        ids = ids.to(device)
        h = model(ids)  # autograd still records the graph
        logp = torch.log_softmax(model.logits(h), dim=-1)  # [1, 64, 8000]: every position
        targets = ids[0, 1:]
        picked = logp[0, :-1].gather(-1, targets[:, None])[:, 0]
        start = len(ctx) - 1  # the logit at position t predicts token t + 1
        scores.append(picked[start : start + len(cont)].sum().item())  # a sync per step
    return scores


def score_fixed(model: TinyLM, items, device) -> list[float]:
    for block in model.blocks:
        block.moe.stack()
    order = sorted(range(len(items)), key=lambda i: len(items[i][0]) + len(items[i][1]))
    out = torch.zeros(len(items), device=device)
    with torch.inference_mode():
        for lo in range(0, len(order), FIXED_BATCH):
            batch = order[lo : lo + FIXED_BATCH]
            seqs = [items[i][0] + items[i][1] for i in batch]
            width = max(len(s) for s in seqs)  # pad to the longest of the batch only
            # Pinned host memory, so that the copy below can run asynchronously.
            ids = torch.zeros(len(batch), width, dtype=torch.long,
                              pin_memory=device.type == "cuda")
            rows, cols, tgt, owner = [], [], [], []
            for r, i in enumerate(batch):
                ctx, cont = items[i]
                seq = seqs[r]
                ids[r, : len(seq)] = torch.tensor(seq)
                for j in range(len(cont)):
                    rows.append(r)
                    cols.append(len(ctx) - 1 + j)
                    tgt.append(cont[j])
                    owner.append(i)
            ids = ids.to(device, non_blocking=True)
            h = model(ids)
            hs = h[torch.tensor(rows, device=device), torch.tensor(cols, device=device)]
            logp = torch.log_softmax(model.logits(hs), dim=-1)  # continuation positions only
            picked = logp.gather(-1, torch.tensor(tgt, device=device)[:, None])[:, 0]
            out.index_add_(0, torch.tensor(owner, device=device), picked)
    return out.tolist()  # the one host sync


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fastenough.demo.workload", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fixed", action="store_true", help="run the path with the waste removed")
    p.add_argument("--items", type=int, default=DEFAULT_ITEMS, help="number of items to score")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    p.add_argument("--out", default=None, help="write per-item scores to this JSON file")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    args = p.parse_args(argv)
    if args.items < 1:
        p.error("--items must be at least 1")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))

    with fastenough.phase("load"):
        model = build_model(device)
        items = make_items(args.items)
    t0 = time.perf_counter()
    scores = (score_fixed if args.fixed else score_wasteful)(model, items, device)
    seconds = time.perf_counter() - t0
    # float32: the precision the scores are computed in (batching and padding
    # change the order of fp32 sums), so `fastenough compare` / `ab` apply fp32
    # tolerances; as float64 they would be held to 1e-7.
    fastenough.record("scores", torch.tensor(scores, dtype=torch.float32))
    total = sum(scores)
    name = "fixed" if args.fixed else "wasteful"
    print(f"demo ({name}, {device}): {len(scores)} items, total score {total:.4f}, "
          f"{seconds:.2f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"path": name, "device": str(device), "items": len(scores),
                       "total": total, "seconds": seconds, "scores": scores}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
