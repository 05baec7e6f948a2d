"""lm-evaluation-harness's Hugging Face log-likelihood path
(lm_eval/models/huggingface.py, HFLM._loglikelihood_tokens, causal case) on a
multiple-choice task: requests sorted longest first, batched, padded on the
right; F.log_softmax over every position of the logits, then per request the
continuation's positions sliced out, the greedy check and torch.gather of its
tokens. A tiny GPT-2 made from a config (random weights, nothing downloaded).

    python lm_eval_loglik.py [--questions 32] [--batch 8]
"""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F
import transformers


def requests(n: int, vocab: int, g: torch.Generator) -> list[tuple[list[int], list[int]]]:
    """(context, continuation) token lists: each question's context with each of
    its 4 choices (1 to 4 tokens)."""
    out = []
    for _ in range(n):
        ctx = torch.randint(0, vocab, (int(torch.randint(24, 48, (1,), generator=g)),),
                            generator=g).tolist()
        for _ in range(4):
            k = int(torch.randint(1, 5, (1,), generator=g))
            out.append((ctx, torch.randint(0, vocab, (k,), generator=g).tolist()))
    return out


def pad_and_concat(max_length: int, tensors: list[torch.Tensor]) -> torch.Tensor:
    """lm_eval.models.utils.pad_and_concat, right padding."""
    rows = [torch.cat([t, torch.zeros(max_length - len(t), dtype=t.dtype)]) for t in tensors]
    return torch.stack(rows)


class HFLM:
    def __init__(self, model, batch_size: int) -> None:
        self.model = model.eval()
        self.batch_size = batch_size
        self.max_length = model.config.n_positions

    def _model_call(self, inps: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return self.model(inps).logits

    def _loglikelihood_tokens(self, reqs) -> list[tuple[float, bool]]:
        order = sorted(range(len(reqs)), key=lambda i: (-len(reqs[i][0] + reqs[i][1]),
                                                        tuple(reqs[i][0] + reqs[i][1])))
        res: dict[int, tuple[float, bool]] = {}
        for b in range(0, len(order), self.batch_size):
            chunk = order[b:b + self.batch_size]
            inps, cont_toks_list, inplens = [], [], []
            padding_len_inp = None
            for i in chunk:
                context_enc, continuation_enc = reqs[i]
                inp = torch.tensor((context_enc + continuation_enc)[-(self.max_length + 1):][:-1],
                                   dtype=torch.long)
                (inplen,) = inp.shape
                padding_len_inp = max(padding_len_inp or 0, inplen)
                inps.append(inp)
                cont_toks_list.append(continuation_enc)
                inplens.append(inplen)
            batched_inps = pad_and_concat(padding_len_inp, inps)  # [batch, padding_len_inp]
            multi_logits = F.log_softmax(self._model_call(batched_inps), dim=-1)
            for i, logits, inplen, cont_toks in zip(chunk, multi_logits, inplens,
                                                    cont_toks_list, strict=True):
                contlen = len(cont_toks)
                ctx_len = inplen + (logits.shape[0] - padding_len_inp)
                logits = logits[ctx_len - contlen:ctx_len]  # _select_cont_toks
                logits = logits.unsqueeze(0)  # [1, seq, vocab]
                greedy_tokens = logits.argmax(dim=-1)
                cont_toks = torch.tensor(cont_toks, dtype=torch.long).unsqueeze(0)  # [1, seq]
                max_equal = (greedy_tokens == cont_toks).all()
                logits = torch.gather(logits, 2, cont_toks.unsqueeze(-1)).squeeze(-1)
                res[i] = (float(logits.sum()), bool(max_equal))
        return [res[i] for i in range(len(reqs))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=32)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cfg = transformers.GPT2Config(vocab_size=4096, n_positions=128, n_embd=64, n_layer=2,
                                  n_head=2, bos_token_id=0, eos_token_id=0)
    lm = HFLM(transformers.GPT2LMHeadModel(cfg), args.batch)
    reqs = requests(args.questions, cfg.vocab_size, torch.Generator().manual_seed(1))
    scores = lm._loglikelihood_tokens(reqs)
    right = 0
    for q in range(args.questions):
        lls = [scores[4 * q + c][0] for c in range(4)]
        right += int(max(range(4), key=lambda c: lls[c]) == 0)
    print(f"acc {right / args.questions:.4f} over {args.questions} questions; "
          f"first loglikelihood {scores[0][0]:.4f}")


if __name__ == "__main__":
    main()
