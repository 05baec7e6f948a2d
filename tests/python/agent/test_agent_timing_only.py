"""`fastenough run --timing-only` (issue 37 items 1/2): the agent counts and times
steps and installs nothing whose cost per step depends on what the program does
(the checks' hooks on module calls, census, logits window, padding, sync watch,
the profiler window, the step timer's hooks). `fastenough ab` times its rounds
this way: under the checks a B that calls a head module 8 times a batch paid
the agent more per step than its A (bench/calibrate_savings.md)."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("torch")

from agent_run_helper import run_under_agent  # noqa: E402
from conftest import run_cli  # noqa: E402

# An evaluation loop whose head is called from the top level once per row (a
# root module call each), with a .item() per step (what sync-in-loop finds).
LOOP = """
import json, torch
from torch import nn
from torch.nn.modules import module as module_mod
torch.manual_seed(0)
body = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 16)).eval()
head = nn.Linear(16, 4).eval()
x = torch.randn(8, 16)
with torch.no_grad():
    for step in range(300):
        h = body(x)
        y = torch.stack([head(h[i]) for i in range(8)])
        y.sum().item()
        if step == 250:  # steady: what the agent has installed by now
            from fastenough.agent import checks
            subs = [m for m in [*body.modules(), head] if m is not body]
            print("STATE", json.dumps({
                "registry": checks.get() is not None,
                "body_hooks": len(body._forward_pre_hooks) + len(body._forward_hooks),
                "sub_hooks": sum(len(m._forward_pre_hooks) + len(m._forward_hooks)
                                 for m in subs),
                "global_hooks": len(module_mod._global_forward_pre_hooks)
                                + len(module_mod._global_forward_hooks),
                "dispatch_modes": torch._C._len_torch_dispatch_stack()}))
"""


def _state(r) -> dict:
    line = next(x for x in r.proc.stdout.splitlines() if x.startswith("STATE "))
    return json.loads(line[len("STATE "):])


def test_timing_only_installs_no_checks_and_still_times_steady_steps(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "timing").mkdir()
    full = run_under_agent(tmp_path / "full", LOOP, {"trace": False})
    assert full.proc.returncode == 0, full.proc.stderr[-3000:]
    # The full agent: the checks' registry, and their hooks on the root modules
    # (the head, called from the top level 8 times a step).
    assert _state(full)["registry"] is True
    assert _state(full)["sub_hooks"] > 0

    r = run_under_agent(tmp_path / "timing", LOOP, {"timing_only": True})
    assert r.proc.returncode == 0, r.proc.stderr[-3000:]
    assert "Traceback" not in r.proc.stderr, r.proc.stderr[-3000:]
    state = _state(r)
    assert state == {"registry": False, "body_hooks": state["body_hooks"], "sub_hooks": 0,
                     "global_hooks": 0, "dispatch_modes": 0}, state
    # The main model keeps the step source's hooks (the native step hook and,
    # while it does not defer, a post hook) and nothing else.
    assert state["body_hooks"] <= 2
    agent = r.main_agent()
    assert agent["timing_only"] is True and agent["checks"] is False
    assert agent["step_split"] == {}  # no step-timer hooks either
    assert agent["profile"] is None and agent["agent_error"] is None
    assert not (r.dir / "checks.json").exists()
    steady = [s for s in r.steps if s["phase"] == "steady"]
    assert len(steady) >= 200, len(steady)
    assert all(s["items"] == 8 for s in steady)


def test_a_timing_only_report_says_the_checks_were_off(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(LOOP)
    r = run_cli("run", "--timing-only", "--require-complete", "--no-history", "--json", "-",
                "--", sys.executable, str(prog), cwd=tmp_path, env={"OMP_NUM_THREADS": "1"})
    # --require-complete: checks off on purpose leave the timing complete.
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads(r.stdout)
    assert [x["code"] for x in doc["measurement"]["reasons"]] == ["checks-off"]
    assert "says nothing about the program" in doc["measurement"]["reasons"][0]["text"]
    assert doc["steps"]["steady_count"] >= 200
    # No finding of the checks (a full run finds sync-in-loop here), none said
    # to be absent: the report's first line says they were not looked for.
    assert not [f for f in doc["findings"] if f["code"] == "sync-in-loop"]
    assert "--timing-only: the steps were timed and no check ran" in r.stderr
    run_dir = next((tmp_path / ".fastenough" / "runs").iterdir())
    md = run_cli("report", run_dir, "--md", cwd=tmp_path).stdout
    assert "Measurement incomplete" in md and "fastenough run --timing-only" in md


@pytest.mark.parametrize("flag", ["--probe", "--analyze-in-job"])
def test_timing_only_refuses_what_needs_the_checks_or_the_window(tmp_path, flag):
    r = run_cli("run", "--timing-only", flag, "--", sys.executable, "-c", "pass",
                cwd=tmp_path)
    assert r.returncode == 2 and "--timing-only" in r.stderr and "Traceback" not in r.stderr
