"""A model hooked by the agent is still the program's model: it pickles, copies,
scripts, traces, compiles and moves as it does without the agent, and a
checkpoint written under the agent loads in a plain process (issue 14, defect 1).

Before the fix torch.save(model) raised "cannot pickle 'module' object" (or
'nanobind.nb_bound_method') and left a corrupt checkpoint behind."""

from __future__ import annotations

import json
import subprocess
import sys

from agent_run_helper import run_under_agent

MODEL = """
import torch, torch.nn as nn
class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.rnn = nn.LSTM(16, 16)          # sequence-first, as in word_language_model
        self.out = nn.Linear(16, 50)
    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)
"""

PROGRAM = MODEL + """
import copy, io, pickle, sys
torch.manual_seed(0)
model = LM()
x = torch.randint(0, 50, (7, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(60):                       # long enough to defer to the native hook
    loss = model(x).sum()
    loss.backward(); opt.step(); opt.zero_grad()
model.eval()
with torch.no_grad():
    for _ in range(120):                     # steady eval: the native hook on the model
        ref = model(x)
torch.save(model, "whole.pt")
torch.save(model.state_dict(), "state.pt")
torch.save(ref, "ref.pt")
copy_ = copy.deepcopy(model)
shallow = copy.copy(model)
blob = pickle.dumps(model)
assert b"fastenough" not in blob, "the agent is inside the pickle"
clone = pickle.loads(blob)
fresh = LM(); fresh.load_state_dict(torch.load("state.pt"))
scripted = torch.jit.script(model)
traced = torch.jit.trace(model, x)
compiled = torch.compile(model, backend="eager")
moved = model.to("cpu")
with torch.no_grad():
    outs = [m(x) for m in (copy_, shallow, clone, fresh, scripted, traced, compiled, moved)]
print(json.dumps({"equal": [bool(torch.equal(o, ref)) for o in outs],
                  "hooks_on_copy": len(copy_._forward_pre_hooks) + len(copy_._forward_hooks),
                  "hooks_on_model": len(model._forward_pre_hooks) + len(model._forward_hooks)}))
with torch.no_grad():
    for _ in range(20):
        model(x)                             # the agent still sees the model after all that
""".replace("import copy, io, pickle, sys", "import copy, io, json, pickle, sys")

LOAD = MODEL + """
import __main__
__main__.LM = LM
with torch.serialization.safe_globals([LM, nn.Embedding, nn.LSTM, nn.Linear]):
    model = torch.load("whole.pt")           # weights_only=True: no foreign class allowed
print(type(model).__name__, len(model._forward_pre_hooks), len(model._forward_hooks))
"""


def test_hooked_model_pickles_copies_scripts_and_loads_plain(tmp_path):
    r = run_under_agent(tmp_path, PROGRAM)
    assert r.proc.returncode == 0, r.proc.stderr
    out = json.loads(r.proc.stdout.strip().splitlines()[-1])
    assert out["equal"] == [True] * 8, out
    assert out["hooks_on_copy"] == 0  # a copy is a plain model
    assert out["hooks_on_model"] >= 1  # the original keeps the agent's hook
    agent = r.main_agent()
    assert agent["agent_error"] is None
    assert agent["steps_deferred"] > 0  # the native hook was on the model when it was saved
    assert agent["steps"] >= 190
    # A plain process (no agent) loads the whole-model checkpoint with weights_only.
    plain = subprocess.run([sys.executable, "-c", LOAD], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == ["LM", "0", "0"]
