"""The models of word_lm.py, in a module of their own as in pytorch/examples'
word_language_model (model.py there): a whole-model checkpoint pickles these
classes by module name, so a plain process that has this folder on sys.path
loads it (from __main__ it could not)."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, ntoken: int, ninp: int, nhid: int, nlayers: int, dropout: float = 0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, x, hidden):
        emb = self.drop(self.encoder(x))
        out, hidden = self.rnn(emb, hidden)
        out = self.drop(out)
        return F.log_softmax(self.decoder(out), dim=-1).view(-1, self.decoder.out_features), hidden

    def init_hidden(self, bsz: int):
        w = next(self.parameters())
        shape = (self.nlayers, bsz, self.nhid)
        return (w.new_zeros(shape), w.new_zeros(shape))


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 1000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        pos = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(1))

    def forward(self, x):
        return x + self.pe[: x.size(0)]


class TransformerModel(nn.Module):
    def __init__(self, ntoken: int, ninp: int, nhead: int, nhid: int, nlayers: int,
                 dropout: float = 0.2):
        super().__init__()
        self.pos = PositionalEncoding(ninp)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)  # sequence-first
        self.encoder_stack = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.ninp = ninp

    def forward(self, x, has_mask: bool = True):
        mask = nn.Transformer.generate_square_subsequent_mask(len(x)) if has_mask else None
        h = self.pos(self.encoder(x) * math.sqrt(self.ninp))
        h = self.encoder_stack(h, mask)
        return F.log_softmax(self.decoder(h), dim=-1)
