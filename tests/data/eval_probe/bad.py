"""Scores a TransformerEncoder text classifier: the model is left in training
mode (dropout on) and autograd records a graph for every batch; .item() per
batch. The waste that fastenough's train-mode-in-eval and autograd-in-eval
price (issue 37 item 1); fixed.py is the same script fixed.

Sizes from the environment (the bench's defaults; the tests make it small):
EVAL_BATCHES, EVAL_BATCH, EVAL_SEQ, EVAL_DIM, EVAL_LAYERS. EVAL_PRINT_RAND=1
prints torch.rand(3) after the loop (the RNG stream the run leaves behind).
"""

import os

import torch
from torch import nn

BATCHES = int(os.environ.get("EVAL_BATCHES", "200"))
BATCH = int(os.environ.get("EVAL_BATCH", "16"))
SEQ = int(os.environ.get("EVAL_SEQ", "64"))
DIM = int(os.environ.get("EVAL_DIM", "128"))
LAYERS = int(os.environ.get("EVAL_LAYERS", "3"))
VOCAB = 1000

torch.manual_seed(0)
torch.set_num_threads(1)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        layer = nn.TransformerEncoderLayer(DIM, nhead=4, dim_feedforward=2 * DIM,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=LAYERS)
        self.head = nn.Linear(DIM, 2)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens))
        return self.head(h.mean(dim=1))


model = Classifier()
data = torch.randint(0, VOCAB, (BATCHES, BATCH, SEQ))
labels = torch.randint(0, 2, (BATCHES, BATCH))

correct = 0
for i in range(BATCHES):
    logits = model(data[i])  # EVAL-FORWARD
    correct += (logits.argmax(-1) == labels[i]).sum().item()

print(f"accuracy {correct / (BATCHES * BATCH):.4f}")
if os.environ.get("EVAL_PRINT_RAND") == "1":
    print("rand", torch.rand(3).tolist())
