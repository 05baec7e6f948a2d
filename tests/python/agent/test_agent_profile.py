"""The profiler window: a few steady steps traced, kept apart as the `profile` phase."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from agent_run_helper import check_balanced, run_under_agent  # noqa: E402

PROG = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
x = torch.randn(4, 32)
with torch.no_grad():
    for i in range(16):
        model(x).sum().item()
print("done")
"""
# warmup_max 4 makes warmup end after exactly 4 steps whatever the machine's noise.
OPTS = {"trace": True, "trace_steps": 3, "trace_after": 2, "warmup_steps": 3, "warmup_max": 4}


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("profiled")
    return run_under_agent(tmp, PROG, opts=OPTS)


def test_profile_window_is_its_own_phase(profiled):
    r = profiled
    assert r.proc.returncode == 0, r.proc.stderr
    assert "done" in r.proc.stdout
    phases = [s["phase"] for s in r.steps]
    assert phases == ["warmup"] * 4 + ["steady"] * 2 + ["profile"] * 3 + ["steady"] * 7
    seq = [p for p, e in r.auto_sequence() if e == "begin"]
    assert seq == ["startup", "warmup", "steady", "profile", "steady", "tail"]
    check_balanced(r.phases)
    prof = r.main_agent()["profile"]
    assert prof["trace"] == "trace/rank0.pt.trace.json.gz"
    assert (prof["first_step"], prof["last_step"]) == (6, 8)
    assert prof["start_wall_ns"] < prof["end_wall_ns"]
    # The window lies inside the profile phase; the export too.
    begin = [p for p in r.phases if p["phase"] == "profile" and p["edge"] == "begin"][0]
    end = [p for p in r.phases if p["phase"] == "profile" and p["edge"] == "end"][0]
    assert begin["wall_ns"] <= prof["start_wall_ns"] < prof["end_wall_ns"] <= end["wall_ns"]


def test_trace_has_one_profiler_step_per_window_step(profiled):
    path = profiled.dir / "trace" / "rank0.pt.trace.json.gz"
    with gzip.open(path, "rt") as f:
        trace = json.load(f)
    names = {e.get("name") for e in trace["traceEvents"]}
    steps = sorted(n for n in names if n and re.fullmatch(r"ProfilerStep#\d+", n))
    assert steps == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert "aten::addmm" in names
    assert not (profiled.dir / "trace" / "rank0.pt.trace.json").exists()


def test_fastenough_analyze_reads_the_trace(profiled):
    path = profiled.dir / "trace" / "rank0.pt.trace.json.gz"
    out = subprocess.run([sys.executable, "-m", "fastenough", "analyze", "--json", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    assert report


def test_no_trace_option(tmp_path):
    r = run_under_agent(tmp_path, PROG, opts=dict(OPTS, trace=False))
    assert r.proc.returncode == 0, r.proc.stderr
    assert "profile" not in {s["phase"] for s in r.steps}
    assert not (r.dir / "trace").exists()
    assert r.main_agent()["profile"] is None


def test_program_ending_inside_the_window_still_writes_the_trace(tmp_path):
    # 4 warmup + 2 steady steps, then the window wants 10 steps but only 3 come.
    r = run_under_agent(tmp_path, PROG.replace("range(16)", "range(9)"),
                        opts=dict(OPTS, trace_steps=10))
    assert r.proc.returncode == 0, r.proc.stderr
    assert [s["phase"] for s in r.steps][-3:] == ["profile"] * 3
    seq = [p for p, e in r.auto_sequence() if e == "begin"]
    assert seq == ["startup", "warmup", "steady", "profile", "tail"]
    check_balanced(r.phases)
    prof = r.main_agent()["profile"]
    assert prof["trace"] == "trace/rank0.pt.trace.json.gz"
    with gzip.open(r.dir / prof["trace"], "rt") as f:
        names = {e.get("name") for e in json.load(f)["traceEvents"]}
    assert "ProfilerStep#0" in names


# ---------------------------------------------------------------- the program's own profiler
# nanoGPT's bench.py --profile=True died of SIGSEGV under the agent: two profiler
# sessions in one process. The window must stand down for the program's profiler.
OWN_PROFILER_MIDWAY = """
import os
import torch
model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
x = torch.randn(4, 32)
for i in range(12):
    model(x).sum().item()
# Here the agent's window is on (it profiles 40 steps): the program starts its own.
with torch.profiler.profile(record_shapes=True) as prof:
    for i in range(5):
        model(x).sum().item()
prof.export_chrome_trace("own.json")
for i in range(10):
    model(x).sum().item()
print("own trace written:", os.path.getsize("own.json") > 1000)
"""

OWN_PROFILER_SCHEDULE = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
x = torch.randn(4, 32)
traces = []
sched = torch.profiler.schedule(wait=8, warmup=1, active=3, repeat=1)
with torch.profiler.profile(schedule=sched, on_trace_ready=lambda p: traces.append(p)) as prof:
    for i in range(30):
        model(x).sum().item()
        prof.step()
print("program traces:", len(traces))
"""


def _profile_info(r) -> dict:
    return r.main_agent()["profile"]


def test_window_stands_down_when_the_program_starts_its_profiler(tmp_path):
    r = run_under_agent(tmp_path, OWN_PROFILER_MIDWAY,
                        opts={"trace": True, "trace_steps": 40, "trace_after": 1,
                              "warmup_steps": 3, "warmup_max": 4})
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip() == "own trace written: True"
    info = _profile_info(r)
    assert "the program started its own profiler" in (info.get("stopped_early") or ""), info
    assert info["trace"], info  # what the window recorded before it is kept
    check_balanced(r.phases)
    assert not (r.dir / "agent.log").exists()


def test_window_never_starts_beside_a_scheduled_program_profiler(tmp_path):
    r = run_under_agent(tmp_path, OWN_PROFILER_SCHEDULE,
                        opts={"trace": True, "trace_steps": 3, "trace_after": 1,
                              "warmup_steps": 3, "warmup_max": 4})
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stdout.strip() == "program traces: 1"
    info = _profile_info(r)
    # Either the window ran in the program's wait steps and stood down at its
    # warm-up, or it was skipped: never both sessions at once.
    said = (info.get("stopped_early") or "") + (info.get("skipped") or "")
    assert "profiler" in said, info
    check_balanced(r.phases)


# ---------------------------------------------------------------- where the window goes
ROLLOUT = """
import torch, torch.nn as nn
torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(30):
    logps = []
    for t in range(40):                     # single-row forwards: the rollout
        logps.append(torch.log_softmax(policy(torch.randn(1, 4)), -1)[0, 0])
    loss = -torch.stack(logps).sum()
    opt.zero_grad(); loss.backward(); opt.step()
print("done")
"""

DATA_ONLY_FIRST = """
import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = DataLoader(TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,))), batch_size=8)
lengths = [len(x) for x, _ in data]        # a pass over the data, no model work
for epoch in range(2):
    for x, y in data:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
print("done")
"""

WINDOW_OPTS = {"trace": True, "trace_steps": 3, "trace_after": 2, "warmup_steps": 3,
               "warmup_max": 4}


def test_a_rollout_is_profiled_again_once_episodes_are_the_steps(tmp_path):
    # REINFORCE: the window first lands on single forwards (the only steps so
    # far); once optimizer steps take over, it runs again on episodes.
    r = run_under_agent(tmp_path, ROLLOUT, opts=WINDOW_OPTS)
    assert r.proc.returncode == 0, r.proc.stderr
    info = _profile_info(r)
    assert info["trace"] and "optimizer calls after the first window" in info["moved"], info
    assert info["superseded"]["mode"] == "train", info
    profiled = [s for s in r.steps if s["phase"] == "profile"]
    assert {s["source"] for s in profiled} >= {"optimizer"}, profiled
    traces = sorted(p.name for p in (r.dir / "trace").iterdir())
    assert [t for t in traces if t.endswith(".pt.trace.json.gz")] == ["rank0.pt.trace.json.gz"]


def test_the_window_waits_for_steps_with_model_work(tmp_path):
    # sentence-transformers' fit() iterated its data first: the window must
    # not profile steps in which the model never ran.
    r = run_under_agent(tmp_path, DATA_ONLY_FIRST, opts=WINDOW_OPTS)
    assert r.proc.returncode == 0, r.proc.stderr
    info = _profile_info(r)
    assert info["trace"], info
    first = info["first_step"]
    profiled = [s for s in r.steps if s["phase"] == "profile"]
    assert profiled and all(s["index"] >= 64 for s in profiled), (first, profiled)


# ---------------------------------------------------------------- torch.compile
COMPILED_ALTERNATING = """
import torch, torch.nn as nn, time
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
cmodel = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x, y = torch.randn(64, 32), torch.randint(0, 4, (64,))
for epoch in range(70):
    model.train()
    opt.zero_grad()
    loss = nn.functional.cross_entropy(cmodel(x), y)
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        acc = (cmodel(x).argmax(-1) == y).float().mean()
print("done")
"""


def test_a_compiled_alternating_loop_is_profiled_and_not_disturbed(tmp_path):
    # PyG's compiled GCN shape: the window covers both modes' steps; afterwards
    # the compiled steps run as fast as before it (a window recording shapes
    # left every op of the aot graph ~100x slower), the census never runs under
    # the profiler (a gigabyte of Python-tracer events), and nothing of the
    # agent warns on the program's stderr.
    plain = run_under_agent(tmp_path, COMPILED_ALTERNATING, run_dir=False, timeout=600)
    r = run_under_agent(tmp_path, COMPILED_ALTERNATING, opts=WINDOW_OPTS, timeout=600)
    assert r.proc.returncode == 0, r.proc.stderr
    assert r.proc.stderr == plain.proc.stderr
    info = _profile_info(r)
    assert info["trace"] and info["record_shapes"] is False, info
    assert (info.get("peak_rss_rise_bytes") or 0) < 64 << 20, info
    steady = [s["end_mono_ns"] - s["start_mono_ns"] for s in r.steps if s["phase"] == "steady"]
    before = [s["end_mono_ns"] - s["start_mono_ns"] for s in r.steps
              if s["phase"] == "steady" and s["index"] < info["first_step"]]
    after = [s["end_mono_ns"] - s["start_mono_ns"] for s in r.steps
             if s["phase"] == "steady" and s["index"] > info["last_step"] + 4]
    assert steady and after, r.steps
    median = sorted(after)[len(after) // 2]
    reference = sorted(before or steady)[len(before or steady) // 2]
    assert median < 10 * reference, (median, reference)
