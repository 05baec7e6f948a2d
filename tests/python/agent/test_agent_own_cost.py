"""The agent never slows the program down as it runs (issue 37, item 7).

functorch's Lennard-Jones force fit went from ~0.24 s to ~2 s a step under
`fastenough run --no-trace`. The class: the full-vocab-logits check follows a
model output with a TorchDispatchMode until the model's next call; in a
sampled steady loop (only every SAMPLE_EVERY-th call comes to Python) the
window outlived its op budget and was closed from inside its own dispatch
handler, where the dispatcher has popped the mode and pushes it back after:
the exit was undone and the mode stayed installed for the rest of the run,
one more each steady window, every op of the program through Python. Here a
small training loop with enough steps to reach those windows must end with
no dispatch mode left installed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agent_run_helper import run_under_agent  # noqa: E402
from checks_helpers import StubRegistry  # noqa: E402

# 1400 steps of a tiny MLP, each with 40 small ops after the forward: past the
# checks' sampling (512 examined forwards) and their first steady window
# (every 16th examined forward, one in 64 examined), whose op budget (5000)
# runs out before the next examined call.
LOOP = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(8, 4)
for step in range(1400):
    opt.zero_grad()
    y = model(x)
    for _ in range(40):
        y = y * 0.999 + 0.001
    y.square().mean().backward()
    opt.step()
with torch.no_grad():
    model(x)  # the model's next call ends a window still open
print("modes", torch._C._len_torch_dispatch_stack())
"""


def test_no_dispatch_mode_outlives_its_window(tmp_path):
    r = run_under_agent(tmp_path, LOOP, {"trace": False})
    assert r.proc.returncode == 0, r.proc.stderr[-3000:]
    assert "Traceback" not in r.proc.stderr, r.proc.stderr[-3000:]
    # Before the fix: "modes 1" (one mode per steady window, for good).
    assert r.proc.stdout.split() == ["modes", "0"], r.proc.stdout + r.proc.stderr[-2000:]
    assert r.main_agent()["agent_error"] is None


def test_the_guard_takes_a_stray_mode_off_and_says_so():
    """The guard, whatever left a mode of ours installed: once the program's ops
    through it pass STRAY_MAX with no window open, the next safe point (the
    model's next call) takes our modes off the stack and the checks switch
    themselves off, with the reason that the report shows ("checks-stopped")."""
    import torch

    from fastenough.agent.checks import logits

    reg = StubRegistry(torch)
    check = logits.LogitsCheck(reg)
    base = torch._C._len_torch_dispatch_stack()
    stray = logits._Mode(check)
    stray.__enter__()  # installed, and no window of the check's open: a leak
    try:
        x = torch.ones(4)
        for _ in range(logits.STRAY_MAX + 10):
            x = x + 1
        assert check.stray_ops > logits.STRAY_MAX
        assert reg.errors == []  # nothing is done from inside the handler
        check.on_pre(torch.nn.Linear(2, 2), (), {})
        assert torch._C._len_torch_dispatch_stack() == base
        assert len(reg.errors) == 1 and reg.errors[0].startswith("own cost:"), reg.errors
        assert "switched themselves off" in reg.errors[0]
    finally:
        while torch._C._len_torch_dispatch_stack() > base:
            torch._C._get_dispatch_stack_at(torch._C._len_torch_dispatch_stack() - 1).__exit__(
                None, None, None)


SLOWING = """
import time
import torch
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(4, 8)
for i in range(150):
    opt.zero_grad()
    model(x).sum().backward()
    time.sleep(0.002 + {growth} * i)  # the program's own step, growing or not
    opt.step()
print("done")
"""


def _run_cli(tmp_path, growth: float):
    import json
    import sys

    from conftest import run_cli

    tmp_path.mkdir()
    script = tmp_path / "prog.py"
    script.write_text(SLOWING.format(growth=growth))
    r = run_cli("run", "--no-history", "--no-trace", "--", sys.executable, str(script),
                cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    (run_dir,) = (tmp_path / ".fastenough" / "runs").iterdir()
    return r, json.loads((run_dir / "report.json").read_text())


def test_a_loop_that_slows_down_is_no_steady_state(tmp_path):
    """2 ms a step growing to 32 ms: the report says the steady steps slowed
    down (measurement partial, steps-drift) first; before, "Measurement
    complete ... steady steps" with a median between the two."""
    r, report = _run_cli(tmp_path / "slowing", 0.0002)
    assert r.returncode == 0 and r.stdout == "done\n", r.stderr[-3000:]
    m = report["measurement"]
    drift = [x for x in m["reasons"] if x["code"] == "steps-drift"]
    assert m["status"] == "partial" and drift, m
    assert "slowed down" in drift[0]["text"]
    assert r.stderr.lstrip().startswith("Measurement incomplete"), r.stderr[:500]
    assert "slowed down as the run went on" in r.stderr
    # The same loop at a flat 2 ms a step: no drift.
    _, flat = _run_cli(tmp_path / "flat", 0.0)
    assert not any(x["code"] == "steps-drift" for x in flat["measurement"]["reasons"]), \
        flat["measurement"]


# The guard (own_cost.py): the agent's own time per step and its records, read
# over steady intervals; a cost planted to grow (FASTENOUGH_TEST_OWN_COST, tests
# only) must switch the agent off, and the report must say so. The program's
# own steps are ~0.2 ms; the planted cost from step 400 on is 50 us times the
# steps since, so without the guard the last 200 steps would carry 5 s of it.
PLANTED = """
import json, time
import torch
torch.manual_seed(0)
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(4, 8)
wall = []
for i in range(1000):
    t0 = time.perf_counter()
    opt.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    wall.append(time.perf_counter() - t0)
print(f"loss {loss.item():.6f}")
json.dump(wall, open("wall.json", "w"))
"""


def _plain(tmp_path, source: str):
    import subprocess
    import sys

    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "prog.py").write_text(source)
    return subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**__import__("os").environ,
                                                       "OMP_NUM_THREADS": "1"})


def test_a_growing_own_cost_switches_the_agent_off_and_the_report_says_so(tmp_path):
    import json
    import sys

    from conftest import run_cli

    plain = _plain(tmp_path / "plain", PLANTED)
    assert plain.returncode == 0, plain.stderr[-2000:]
    work = tmp_path / "tool"
    work.mkdir()
    (work / "prog.py").write_text(PLANTED)
    r = run_cli("run", "--no-history", "--no-trace", "--", sys.executable, "prog.py", cwd=work,
                env={"OMP_NUM_THREADS": "1",
                     "FASTENOUGH_TEST_OWN_COST": json.dumps({"grow_ns": 50_000, "after": 400})})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout == plain.stdout  # the program's output, unchanged
    (run_dir,) = (work / ".fastenough" / "runs").iterdir()
    (record,) = [json.loads(p.read_text()) for p in (run_dir / "agent").glob("*.json")]
    assert record["agent_error"].startswith("own cost: the agent's own time grew"), record
    assert record["own_cost"]["switched_off"] == record["agent_error"]
    # Switched off well before the end: the last 200 steps carry none of it
    # (without the guard: 5 s of planted time in them).
    wall = json.loads((work / "wall.json").read_text())
    assert sum(wall[-200:]) < 1.5, sum(wall[-200:])
    report = json.loads((run_dir / "report.json").read_text())
    off = [x for x in report["measurement"]["reasons"] if x["code"] == "agent-off"]
    assert off and "own cost" in off[0]["text"] and "switched itself off" in off[0]["text"], \
        report["measurement"]
    assert "own cost" in r.stderr and "switched itself off" in r.stderr


def test_growing_own_records_switch_the_agent_off(tmp_path):
    """The memory side: records the agent keeps per step (planted: 20,000 a
    step from step 400 on) switch it off, and its planted records go with it."""
    r = run_under_agent(tmp_path, PLANTED, {"trace": False,
                                           "_test_own_cost": {"grow_records": 20_000,
                                                              "after": 400}})
    assert r.proc.returncode == 0, r.proc.stderr[-3000:]
    record = r.main_agent()
    assert record["agent_error"].startswith("own cost: the agent's own records grew"), record
    assert record["own_cost"]["peak_records"] < 20_000 * 600  # stopped early


def test_an_agent_that_costs_nothing_new_stays_on(tmp_path):
    """The same loop with nothing planted: the guard leaves the agent on, and
    its records stay within a few per step."""
    r = run_under_agent(tmp_path, PLANTED, {"trace": False})
    assert r.proc.returncode == 0, r.proc.stderr[-3000:]
    record = r.main_agent()
    assert record["agent_error"] is None, record["agent_error"]
    own = record["own_cost"]
    assert own["switched_off"] is None and own["steady_intervals"] >= 3, own
    assert own["peak_records"] - own["base_records"] < 8 * own["steps"], own
