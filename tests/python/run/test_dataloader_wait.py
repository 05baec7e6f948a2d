"""dataloader-bound's saving is the loop's own wait for its batches, timed
outside the profiler window, not the window's share carried to the steady
step (issue 37, items 1 and 4).

Under the profiler every aten op of the model is recorded, so a loop of many
small CPU ops slows several times more than a loader that sleeps (a file read,
a decode): the loader's share of the profiled step understates the wait, and
the claim fell below what the fix then saved (lightning-fit-val: 6.3% claimed,
9.8% [3.1%, 16.1%] measured by `ab`; the agent had timed 0.34 ms a step in
__next__ against the 0.20 ms claimed)."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from conftest import run_cli

pytest.importorskip("torch")

# 2 ms an item, 16 ms a batch: large beside the profiled step. At 0.5 ms the
# fresh-clone CI rehearsal (load 3-4) profiled one step of 115 ms before the
# memory guard cut the window, the loader 4.9% of it, under the finding's 5%.
SLEEP_PER_ITEM_S = 0.002
BATCH = 8

# A Dataset whose items take 2 ms each (16 ms a batch of 8, no workers) and a
# step of ~300 small ops: the profiler slows the ops, not the sleeps.
PROGRAM = f"""
import time, torch
from torch.utils.data import DataLoader, Dataset
torch.manual_seed(0)
class Slow(Dataset):
    def __len__(self):
        return 480
    def __getitem__(self, i):
        time.sleep({SLEEP_PER_ITEM_S})
        return torch.full((16,), float(i % 7))
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(60))
    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x)) * 0.5 + x * 0.5
        return x
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for x in DataLoader(Slow(), batch_size={BATCH}):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
print("done")
"""


@pytest.mark.integration
def test_a_loaders_saving_is_its_timed_wait_not_the_profiled_share(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM))
    # No shapes: the window holds no tensors, so the memory guard lets it run its
    # steps (the finding is the window's; its price is the agent's timing).
    r = run_cli("run", "--no-history", "--quiet", "--trace-no-shapes", "--",
                sys.executable, str(script),
                cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().endswith("done")
    [run_dir] = sorted((tmp_path / ".fastenough" / "runs").iterdir())
    report = json.loads((run_dir / "report.json").read_text())
    found = [f for f in report["findings"] if f["code"] == "dataloader-bound"]
    assert found, [f["code"] for f in report["findings"]]
    [f] = found
    assert f["verdict"] == "avoidable"
    ev = f["evidence"]
    assert ev["saving_basis"].startswith("measured: the loop's mean wait in DataLoader"), ev
    assert ev["data_wait_timed_steps"] >= 4
    planted = BATCH * SLEEP_PER_ITEM_S * 1e9  # a sleep lasts at least this long
    median = report["steps"]["steady_median_ns"]
    saving = f["saving"]["per_step_ns"]
    # The wait is at least the planted sleeps and the claim at most the step.
    assert ev["data_wait_ns_per_step"] >= 0.95 * planted, (ev, planted)
    assert saving == min(ev["data_wait_ns_per_step"], median) or \
        abs(saving - min(ev["data_wait_ns_per_step"], median)) <= 1, (saving, ev, median)
    assert saving >= 0.95 * min(planted, median)
    assert 0 < f["saving"]["share_of_step"] <= 1


@pytest.mark.integration
def test_the_timed_steps_find_a_loader_without_the_window(tmp_path):
    """No profiler window (--no-trace): the loop's wait in __next__ in nearly
    every timed step (16 ms a batch of a step of ~20 ms) makes the finding,
    at the user's line that iterates the loader. Before, dataloader-bound came
    from the window only: a loader that the window's profiled steps put near
    its 5% gate was found in some runs only (a torch.func loop over a
    TensorDataset, 3 of 5; Lightning's fit), and none without a window."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM))
    r = run_cli("run", "--no-history", "--quiet", "--no-trace", "--",
                sys.executable, str(script), cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    [run_dir] = sorted((tmp_path / ".fastenough" / "runs").iterdir())
    report = json.loads((run_dir / "report.json").read_text())
    found = [f for f in report["findings"] if f["code"] == "dataloader-bound"]
    assert found, [f["code"] for f in report["findings"]]
    [f] = found
    assert f["verdict"] == "avoidable" and f["source"] == "agent", f
    # (the file's line 1 is PROGRAM's empty first line, index 0)
    loop_line = 1 + PROGRAM.splitlines().index(f"for x in DataLoader(Slow(), batch_size={BATCH}):")
    assert f["where"][0]["file"].endswith("prog.py") and f["where"][0]["line"] == loop_line, f
    ev = f["evidence"]
    planted = BATCH * SLEEP_PER_ITEM_S * 1e9
    assert ev["loop_wait_in_nearly_every_step_ns"] >= 0.95 * planted, ev
    assert ev["saving_basis"].startswith("measured: the loop's mean wait in DataLoader"), ev
    agent = json.loads(next((run_dir / "agent").glob("*.json")).read_text())
    assert agent["step_split"]["train"]["data_ns_p10"] == ev["loop_wait_in_nearly_every_step_ns"]
    assert agent["dataloader_site"]["train"]["line"] == loop_line


@pytest.mark.integration
def test_the_profiler_window_records_no_check_of_ours(tmp_path):
    """The full-vocab-logits check follows a forward's ops with a dispatch mode
    (Python for every op). Opened inside the profiler window, the window recorded
    its frames as the program's (29,388 Python events against 1,327 for the same
    step plain) and timed them as its steps, and the stop's processing of those
    events raised the peak RSS by 70 MiB for one step with shapes and stacks, past
    fastenough's 64 MiB bound, in every run. The check now waits for the window
    to end."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM).replace(
        f"time.sleep({SLEEP_PER_ITEM_S})", "time.sleep(0.0005)"))
    r = run_cli("run", "--no-history", "--quiet", "--trace-steps", "1", "--",
                sys.executable, str(script), cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    [run_dir] = sorted((tmp_path / ".fastenough" / "runs").iterdir())
    [trace] = sorted((run_dir / "trace").glob("*.pt.trace.json.gz"))
    import gzip

    events = json.loads(gzip.decompress(trace.read_bytes()))["traceEvents"]
    ours = [e["name"] for e in events if e.get("cat") == "python_function"
            and "fastenough/agent/checks/logits.py" in e["name"]]
    # Its per-forward hooks (on_pre, close: a few a step) are left; its per-op
    # handler was 3,266 of them in the one profiled step.
    assert len(ours) < 100, (len(ours), ours[:3])
    [main] = [json.loads(p.read_text()) for p in (run_dir / "agent").glob("*.json")
              if json.loads(p.read_text())["role"] == "main"]
    rise = main["profile"]["peak_rss_rise_bytes"]
    assert rise is not None and rise <= main["profile"]["memory_bound_bytes"], main["profile"]
