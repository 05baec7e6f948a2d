"""A top-k mixture-of-experts feed-forward layer and attention block (lint fixture)."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(d_model, d_ff, bias=False)
        self.up_proj = nn.Linear(d_model, d_ff, bias=False)
        self.down_proj = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class TopKMoE(nn.Module):
    def __init__(self, d_model: int, d_ff: int, num_experts: int, k: int = 2) -> None:
        super().__init__()
        self.router = nn.Linear(d_model, num_experts, bias=False)
        self.experts = nn.ModuleList(Expert(d_model, d_ff) for _ in range(num_experts))
        self.k = k

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        flat = x.reshape(-1, d)
        weights, chosen = torch.topk(F.softmax(self.router(flat), dim=-1), self.k, dim=-1)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            rows, slot = torch.where(chosen == e)
            if rows.numel() == 0:
                continue
            out[rows] += weights[rows, slot, None] * expert(flat[rows])
        return out.reshape(b, t, d)


class Attention(nn.Module):
    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.n_heads
        q = self.q_proj(x).view(b, t, self.n_heads, hd).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_heads, hd).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_heads, hd).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(hd)
        probs = F.softmax(scores, dim=-1)
        y = (probs @ v).transpose(1, 2).contiguous().view(b, t, d)
        return self.o_proj(y)


class PerHeadGate(nn.Module):
    def __init__(self, d_head: int, n_heads: int) -> None:
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(d_head, 1) for _ in range(n_heads))

    def forward(self, per_head: torch.Tensor) -> torch.Tensor:
        gates = [head(per_head[:, i]) for i, head in enumerate(self.heads)]
        return torch.cat(gates, dim=-1)
