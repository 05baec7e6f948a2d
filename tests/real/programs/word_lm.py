"""A word-level language model in the style of pytorch/examples'
word_language_model (written for this test suite, not copied): sequence-first
LSTM or Transformer, trained by truncated backprop through time, evaluated,
saved as a whole-model checkpoint with torch.save(model), reloaded, and then
used to generate text the way that example's generate.py does (the Transformer
re-runs the whole prefix for every new word and takes log_softmax over the full
vocabulary to read the last position).

The corpus is synthetic and seeded (a Zipf-like Markov chain over a fixed
vocabulary) so stdout is identical from run to run on the same machine.

    python word_lm.py --model LSTM|Transformer --save model.pt [--generate 60]
"""

from __future__ import annotations

import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from lm_models import RNNModel, TransformerModel


def make_corpus(n_tokens: int, vocab: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    weights = 1.0 / torch.arange(1, vocab + 1, dtype=torch.float64)
    nxt = torch.multinomial(weights.expand(vocab, vocab), 8, generator=g)  # 8 successors per word
    out = torch.empty(n_tokens, dtype=torch.long)
    w = 0
    for i in range(n_tokens):
        out[i] = w
        w = int(nxt[w, int(torch.randint(0, 8, (1,), generator=g))])
    return out


def batchify(data: torch.Tensor, bsz: int) -> torch.Tensor:
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()  # (seq, batch)


def get_batch(source: torch.Tensor, i: int, bptt: int):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def repackage(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage(v) for v in h)


def run_model(model, data, hidden, is_lstm: bool):
    if is_lstm:
        return model(data, hidden)
    return model(data).view(-1, model.decoder.out_features), None


def evaluate(model, source, bptt: int, is_lstm: bool, bsz: int) -> float:
    model.eval()
    total = 0.0
    hidden = model.init_hidden(bsz) if is_lstm else None
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, bptt):
            data, targets = get_batch(source, i, bptt)
            out, hidden = run_model(model, data, hidden, is_lstm)
            total += len(data) * F.nll_loss(out, targets).item()
    return total / (len(source) - 1)


def train_epoch(model, source, opt, bptt: int, is_lstm: bool, bsz: int) -> float:
    model.train()
    hidden = model.init_hidden(bsz) if is_lstm else None
    losses = []
    for i in range(0, source.size(0) - 1, bptt):
        data, targets = get_batch(source, i, bptt)
        if is_lstm:
            hidden = repackage(hidden)
        opt.zero_grad()
        out, hidden = run_model(model, data, hidden, is_lstm)
        loss = F.nll_loss(out, targets)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        opt.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def generate(model, n_words: int, is_lstm: bool, seed: int) -> list[int]:
    torch.manual_seed(seed)
    model.eval()
    x = torch.randint(model.decoder.out_features, (1, 1), dtype=torch.long)
    hidden = model.init_hidden(1) if is_lstm else None
    words = []
    with torch.no_grad():
        for _ in range(n_words):
            if is_lstm:
                out, hidden = model(x, hidden)
                w = torch.multinomial(out.squeeze().exp(), 1)[0]
                x.fill_(w)
            else:
                out = model(x, False)  # the whole prefix again, every word
                w = torch.multinomial(out[-1].squeeze().exp(), 1)[0]
                x = torch.cat([x, torch.full((1, 1), int(w), dtype=torch.long)], 0)
            words.append(int(w))
    return words


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["LSTM", "Transformer"], default="LSTM")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=24000)
    ap.add_argument("--vocab", type=int, default=2000)
    ap.add_argument("--bptt", type=int, default=35)
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--generate", type=int, default=60)
    ap.add_argument("--save", default="model.pt")
    args = ap.parse_args()

    torch.manual_seed(1111)
    torch.set_num_threads(1)
    corpus = make_corpus(args.tokens, args.vocab, seed=7)
    split = int(0.9 * len(corpus))
    train, val = batchify(corpus[:split], args.batch), batchify(corpus[split:], 10)
    is_lstm = args.model == "LSTM"
    if is_lstm:
        model = RNNModel(args.vocab, 128, 128, 2)
    else:
        model = TransformerModel(args.vocab, 128, 2, 128, 2)
    opt = torch.optim.SGD(model.parameters(), lr=1.0 if is_lstm else 0.5)
    for epoch in range(1, args.epochs + 1):
        tl = train_epoch(model, train, opt, args.bptt, is_lstm, args.batch)
        vl = evaluate(model, val, args.bptt, is_lstm, 10)
        print(f"epoch {epoch} train loss {tl:.4f} valid ppl {math.exp(vl):.2f}")
    with open(args.save, "wb") as f:
        torch.save(model, f)
    with open(args.save, "rb") as f:
        model = torch.load(f, weights_only=False)
    words = generate(model, args.generate, is_lstm, seed=42)
    print("generated", " ".join(map(str, words)))


if __name__ == "__main__":
    main()
