"""Score multiple-choice answers with a causal LM (lint fixture, Hugging Face style)."""

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, AutoTokenizer


def load(name: str, device: str = "cuda"):
    tok = AutoTokenizer.from_pretrained(name)
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16).to(device)
    return tok, model


def score_choices(model, tok, question: str, choices: list[str]) -> list[float]:
    scores = []
    for choice in choices:
        ctx = tok(question, return_tensors="pt").input_ids
        ids = tok(question + " " + choice, return_tensors="pt").input_ids.to(model.device)
        out = model(input_ids=ids, use_cache=True, output_hidden_states=True)
        logp = F.log_softmax(out.logits.float(), dim=-1)
        token_logp = logp[0, :-1].gather(-1, ids[0, 1:, None]).squeeze(-1)
        scores.append(token_logp[ctx.shape[1] - 1:].sum().item())
    return scores


@torch.inference_mode()
def score_last_token(model, ids):
    out = model(input_ids=ids, use_cache=False, output_attentions=True)
    last = out.logits[:, -1, :]
    return F.log_softmax(last, dim=-1), out.attentions


def generate(model, ids):
    return model.generate(ids, max_new_tokens=20, use_cache=True)
