"""The agent never changes what the program does: crashes, signals, internal errors,
programs without torch, other sitecustomize files, DataLoader workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from agent_run_helper import check_balanced, run_under_agent

LOOP = """
import torch
model = torch.nn.Linear(16, 4)
x = torch.randn(2, 16)
for i in range(12):
    model(x).sum().item()
    if i == 7:
        {action}
print("finished")
"""


def test_no_torch_program_imports_nothing(tmp_path):
    r = run_under_agent(tmp_path, """
import atexit, sys
atexit.register(lambda: print("torch" in sys.modules, "fastenough.agent.runtime" in sys.modules))
print(sum(range(10)))
""")
    assert r.proc.returncode == 0, r.proc.stderr
    # The agent is loaded (cheaply) but torch never is.
    assert r.proc.stdout.split() == ["45", "False", "True"]
    assert not (r.dir / "phases.jsonl").exists()
    assert not (r.dir / "steps.jsonl").exists()
    files = sorted(p.relative_to(r.dir).as_posix() for p in r.dir.rglob("*") if p.is_file())
    assert files == [f"agent/{r.proc_pid()}.json"]
    agent = r.main_agent()
    assert agent["role"] == "main" and agent["torch"] is None and agent["steps"] == 0


def test_nothing_happens_without_run_dir(tmp_path):
    r = run_under_agent(tmp_path, """
import sys
print("fastenough.agent.runtime" in sys.modules)
""", run_dir=False)
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.split() == ["False"]
    assert list(r.dir.iterdir()) == []


@pytest.mark.parametrize("with_run_dir", [True, False])
def test_chains_other_sitecustomize(tmp_path, with_run_dir):
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text(
        "import os\nos.environ['OTHER_SITECUSTOMIZE'] = __name__ + ':' + __file__\n")
    r = run_under_agent(tmp_path, """
import os
print(os.environ.get("OTHER_SITECUSTOMIZE"))
""", pythonpath=[str(other)], run_dir=with_run_dir)
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip() == f"sitecustomize:{other / 'sitecustomize.py'}"


def test_crash_mid_loop_keeps_exit_status_and_files(tmp_path):
    r = run_under_agent(tmp_path, LOOP.format(action='raise RuntimeError("boom")'))
    assert r.proc.returncode == 1
    assert "RuntimeError: boom" in r.proc.stderr
    assert "finished" not in r.proc.stdout
    assert len(r.steps) == 8  # steps 0..7; the 8th ended at the model's return
    seq = r.auto_sequence()
    assert seq[0] == ("startup", "begin") and seq[-1] == ("tail", "end")
    check_balanced(r.phases)
    assert r.main_agent()["agent_error"] is None


def test_os_exit_leaves_files_written_at_phase_edges(tmp_path):
    r = run_under_agent(tmp_path, LOOP.format(action="os._exit(3)").replace(
        "import torch", "import os, torch"))
    assert r.proc.returncode == 3
    # No atexit: what the phase edges wrote is there, no tail.
    seq = r.auto_sequence()
    assert seq[:3] == [("startup", "begin"), ("startup", "end"), ("warmup", "begin")]
    assert ("tail", "end") not in seq
    agent = r.main_agent()
    assert agent["role"] == "main" and agent["torch"]


def test_sigterm_closes_phases_and_dies_of_the_signal(tmp_path):
    r = run_under_agent(tmp_path, LOOP.format(action="os.kill(os.getpid(), signal.SIGTERM)")
                        .replace("import torch", "import os, signal, torch"))
    assert r.proc.returncode == -signal.SIGTERM
    seq = r.auto_sequence()
    assert seq[-1] == ("tail", "end")
    check_balanced(r.phases)
    assert len(r.steps) >= 7


def test_keyboard_interrupt_closes_phases(tmp_path):
    r = run_under_agent(tmp_path, LOOP.format(action="raise KeyboardInterrupt"))
    assert r.proc.returncode == -signal.SIGINT  # what Python does without the agent too
    assert r.auto_sequence()[-1] == ("tail", "end")


@pytest.mark.parametrize("where", ["step", "module", "activate"])
def test_internal_error_disables_agent_only(tmp_path, where):
    r = run_under_agent(tmp_path, LOOP.format(action="pass"),
                        opts={"trace": False, "_test_fail": where})
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip() == "finished"
    assert r.proc.stderr == ""
    log = (r.dir / "agent.log").read_text()
    assert f"injected failure in {where}" in log
    assert log.count("disabled after an internal error") == 1
    agent = r.main_agent()
    assert f"injected failure in {where}" in agent["agent_error"]


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_dataloader_workers_write_no_steps(tmp_path, context):
    # fork: children inherit the agent and are told apart by pid; spawn: fresh
    # interpreters load it again and see from their command line that they are workers.
    r = run_under_agent(tmp_path, """
import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    data = TensorDataset(torch.arange(24, dtype=torch.float32).view(12, 2))
    loader = DataLoader(data, batch_size=3, num_workers=2, multiprocessing_context="CTX")
    model = torch.nn.Linear(2, 1)
    for (x,) in loader:
        model(x)
""".replace("CTX", context))
    assert r.proc.returncode == 0, r.proc.stderr
    main_pid = r.proc_pid()
    steps = r.steps
    assert [s["items"] for s in steps] == [3, 3, 3, 3]
    assert {s["pid"] for s in steps} == {main_pid}
    assert {p["pid"] for p in r.phases} == {main_pid}
    roles = sorted(a["role"] for a in r.agent_files())
    assert roles.count("main") == 1
    # Two DataLoader workers (spawn also starts multiprocessing's resource tracker).
    assert roles.count("worker") >= 2 and set(roles) == {"main", "worker"}


def test_roles():
    from fastenough.agent.bootstrap import detect_role

    py = "/usr/bin/python3"
    assert detect_role([py, "/venv/bin/torchrun", "--nproc-per-node=2", "t.py"], {}) == "launcher"
    assert detect_role([py, "-m", "torch.distributed.run", "t.py"], {}) == "launcher"
    assert detect_role([py, "t.py"], {"RANK": "1", "WORLD_SIZE": "2"}) == "rank"
    assert detect_role([py, "-c", "from multiprocessing.spawn import spawn_main; spawn_main()",
                        "--multiprocessing-fork"], {}) == "worker"
    assert detect_role([py, "t.py"], {}) == "main"
    assert detect_role([py, "-m", "mypkg", "--rank", "3"], {}) == "main"


def test_opts_parsing():
    from fastenough.agent.bootstrap import DEFAULT_OPTS, parse_opts

    assert parse_opts(None) == DEFAULT_OPTS
    assert parse_opts("not json") == DEFAULT_OPTS
    o = parse_opts('{"trace": false, "trace_steps": 2}')
    assert o["trace"] is False and o["trace_steps"] == 2 and o["warmup_steps"] == 3


def test_api_is_a_noop_outside_a_run():
    code = """
import sys, fastenough
with fastenough.phase("x"):
    fastenough.step(items=3)
@fastenough.phase("y")
def f(a):
    return a + 1
assert f(1) == 2
assert fastenough.record("r", 5) == 5
print("torch" in sys.modules, "fastenough.agent.runtime" in sys.modules)
"""
    env = {k: v for k, v in os.environ.items() if k != "FASTENOUGH_RUN_DIR"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_torchrun_ranks_and_launcher(tmp_path):
    r = run_under_agent(tmp_path, """
import os, torch
model = torch.nn.Linear(4, 2)
x = torch.randn(int(os.environ["RANK"]) + 2, 4)
for i in range(5):
    model(x)
""", launcher=["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"])
    assert r.proc.returncode == 0, r.proc.stderr
    agents = r.agent_files()
    roles = sorted((a["role"], a["rank"]) for a in agents)
    assert roles == [("launcher", None), ("rank", 0), ("rank", 1)]
    ranks = {a["pid"]: a["rank"] for a in agents if a["role"] == "rank"}
    for a in agents:
        if a["role"] == "rank":
            assert a["world_size"] == 2 and a["local_rank"] == a["rank"]
    steps = r.steps
    assert sorted((s["rank"], s["items"]) for s in steps) == [(0, 2)] * 5 + [(1, 3)] * 5
    assert all(ranks[s["pid"]] == s["rank"] for s in steps)
    launcher_pid = [a["pid"] for a in agents if a["role"] == "launcher"][0]
    assert launcher_pid not in {p["pid"] for p in r.phases}
    for pid in ranks:
        check_balanced([p for p in r.phases if p["pid"] == pid])
