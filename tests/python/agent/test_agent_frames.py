"""No frame of the agent between the program and what it calls: the program's
tracebacks and warnings are those of a plain run, byte for byte.

Each program runs plain and under the agent (profiler window on, so the sync
watch, the logits window, the census and the profiler all run while the
program fails or warns). Its stderr must be the same: a wrapper written in
Python would add a frame to every traceback through it and shift the frames
that warnings.warn(stacklevel=N) counts (torch's own warnings were attributed
to fastenough's lines), and warnings.catch_warnings() in the agent made
warnings printed once plain print again."""

from __future__ import annotations

import re
import sys

import pytest
from agent_run_helper import run_under_agent
from conftest import REPO

pytest.importorskip("torch")

OPTS = {"trace": True, "trace_steps": 3, "trace_after": 1}

# A model whose output is vocabulary-sized, so that the logits check opens its
# windows on the first forwards and in the steady loop.
HEAD = """
import pickle, warnings
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1200))
x = torch.randn(4, 8)
"""


def both(tmp_path, body: str):
    """The same file, run plain and under the agent (tracebacks name its path)."""
    source = HEAD + body
    plain = run_under_agent(tmp_path, source, run_dir=False)
    tool = run_under_agent(tmp_path, source, opts=OPTS)
    return plain.proc, tool


def _addresses_out(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", " at 0x?", text)


def assert_same_stderr(plain, tool) -> None:
    t = tool.proc
    assert t.returncode == plain.returncode, t.stderr
    assert t.stdout == plain.stdout
    # (object addresses in messages differ from process to process)
    assert _addresses_out(t.stderr) == _addresses_out(plain.stderr), (plain.stderr, t.stderr)
    # No frame of fastenough's: its name nowhere but in the directories of the
    # checkout and of the environment, whose names are the user's (a clone at
    # .../fresh-clone-of-fastenough with its .venv inside: issue 36).
    named = t.stderr.replace(str(REPO), "<checkout>").replace(sys.prefix, "<venv>")
    assert "fastenough" not in named, t.stderr
    log = tool.dir / "agent.log"
    assert not log.exists(), log.read_text()


def test_warnings_once_per_location_stay_once(tmp_path):
    # Printed once plain (the default filter): a user warning in the loop, torch's
    # own deprecation warning (F.softmax without dim: stacklevel names this
    # line) inside the logits window, across phase edges, the census and the
    # profiler window.
    plain, tool = both(tmp_path, """
for i in range(60):
    y = model(x)
    warnings.warn("a warning of the program's loop")
    p = torch.nn.functional.softmax(y)
    v = p[:, :3].sum().item()
print("done", round(v, 3))
""")
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr.count("UserWarning") == 2, plain.stderr
    assert_same_stderr(plain, tool)


@pytest.mark.parametrize("failure", [
    # .item() of a 2-element tensor while the sync watch taps Tensor.item
    "model(x)[:, :2].sum(0).item()",
    # backward through a freed graph: the native wrapper of torch.autograd.backward
    "loss = model(x).sum(); loss.backward(); loss.backward()",
    # an op that fails after a forward, inside the logits window's dispatch mode
    "model(x) @ torch.ones(3, 3)",
    # pickling a model that cannot be pickled: the native __getstate__ filter
    "model.fn = lambda: 0; pickle.dumps(model)",
    # TorchScript rejects it: the native wrapper that mutes our hooks
    "torch.jit.script(lambda t: t)",
])
def test_tracebacks_are_the_programs(tmp_path, failure):
    plain, tool = both(tmp_path, f"""
for i in range(40):
    y = model(x)
    y.sum().item()
    if i == 35:
        {failure}
""")
    assert plain.returncode == 1 and "Traceback" in plain.stderr, plain.stderr
    assert_same_stderr(plain, tool)


def test_dataloader_error_traceback(tmp_path):
    plain, tool = both(tmp_path, """
class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 400
    def __getitem__(self, i):
        if i == 150:
            raise KeyError(f"item {i} is missing")
        return torch.randn(8)

for batch in torch.utils.data.DataLoader(Data(), batch_size=4):
    model(batch).sum().item()
""")
    assert plain.returncode == 1 and "KeyError" in plain.stderr, plain.stderr
    assert_same_stderr(plain, tool)
