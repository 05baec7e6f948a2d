"""load-imbalance on CPU ranks (gloo) that share their cores with other work
(issue 37, item 12): two equal DDP ranks, the DDP tutorial's loop (a
DataLoader over a DistributedSampler, one Linear), rank 1 on a core shared
with two busy loops for the whole run. A rank that waits for a core runs the
same ops for longer: the vendored tutorial's equal ranks, unpinned, differed
by 15-35% of a step in wall-time work in about half the runs at load 7 to 13
on two cores, which load-imbalance named. On host-only jobs it now compares
the ranks' work items (ops and kernels per step, in the rank summaries): this
holds its premise on a real job, that equal ranks count the same items per
step however long they took, and that nobody is named. (This loop's work is
about 1 ms of a 10-20 ms step, so wall time alone did not name a rank here in
3 pinned runs either; the stretched case is DetectorsLoadImbalance.
EqualOpsStretchedByTheSchedulerAreNotNamedOnTheCpu.) A second test runs the
same loop unpinned beside three busy loops, the window on by default: none of
the rank findings an expert forbids on equal ranks. The planted heavy ranks
that must still be named are in test_in_job_analysis.py
(test_a_rank_with_more_work_per_step_is_named,
test_two_ranks_slow_for_two_reasons_are_both_named)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys

import pytest
from conftest import run_cli

torch = pytest.importorskip("torch")
if not torch.distributed.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

# Rank r runs on the r-th core the test may use; the busy loops share rank 1's.
PROGRAM = """\
import os
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[int(os.environ["RANK"])]})
dist.init_process_group("gloo")
torch.manual_seed(0)
data = TensorDataset(torch.rand(8192, 20), torch.rand(8192, 1))
loader = DataLoader(data, batch_size=32, shuffle=False, sampler=DistributedSampler(data))
model = DDP(torch.nn.Linear(20, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for x, y in loader:
    opt.zero_grad()
    F.mse_loss(model(x), y).backward()
    opt.step()
print(f"rank {dist.get_rank()} done", flush=True)
dist.barrier()
dist.destroy_process_group()
"""

BUSY = ("import os\nos.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[1]})\n"
        "while True:\n    pass\n")
TORCH_ABORT = "terminate called without an active exception"  # torch's gloo teardown


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="pins the ranks to two cores")
def test_equal_cpu_ranks_under_load_are_not_named(tmp_path):
    # Rank 1 shares its core with two busy loops for the whole run, rank 0 has its own.
    (tmp_path / "prog.py").write_text(PROGRAM)
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
    try:
        report = _run_two_ranks(tmp_path)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    rd = tmp_path / "rd"
    # A window long enough to judge (load-imbalance wants 3 steady steps beside
    # the window's last; the memory guard at its default bound stopped this
    # loop's window after 3 steps: --trace-memory above).
    for per_rank in report["step_breakdown"]["per_rank"]:
        assert len(per_rank["steps"]) - per_rank["steady_begin"] >= 6, per_rank["steps"]
    # The ranks ran the same ops: the same work items in their steady steps.
    items = {}
    for rank in (0, 1):
        s = json.loads((rd / "rank-summaries" / f"rank{rank}.summary.json").read_text())
        steady = s["step_breakdown"]["steady_begin"]
        items[rank] = statistics.median(s["step_work_items"][steady:])
    assert items[0] == items[1] > 0, items
    named = [f["evidence"] for f in report["findings"] if f["code"] == "load-imbalance"]
    assert not named, ("two equal ranks: neither does more work", named)
    _nothing_forbidden(report)


# Findings an expert forbids on two equal data-parallel CPU ranks, each of
# which read a loaded machine's wall time before issue 37 (11 runs with the
# window on, 2 busy loops beside, load 5-13: 5 had one):
#   dataloader-bound on both ranks (3 runs, 7-17% of a step): the loader's
#     0.9 ms a step is mostly its own ops (aten::select, aten::stack), CPU work
#     a worker would need a core for, stretched in a few steps by the scheduler;
#   devices-take-turns (3): ranks linked by all-reduces only do not take turns;
#   straggler-rank (1): last at 10 of 12 all-reduces by 0.24 ms, in 9 ms steps.
FORBIDDEN = ("load-imbalance", "dataloader-bound", "devices-take-turns", "straggler-rank")


def _forbidden(report: dict) -> list:
    return [(f["code"], f.get("rank"), f["evidence"]) for f in report["findings"]
            if f["code"] in FORBIDDEN]


def _nothing_forbidden(report: dict) -> None:
    found = _forbidden(report)
    assert not found, ("two equal ranks", found)


BUSY_ANYWHERE = "while True:\n    pass\n"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs two cores for the ranks")
def test_the_ddp_tutorials_equal_ranks_get_no_rank_finding_beside_busy_loops(tmp_path):
    # The DDP tutorial's loop unpinned, the window on by default (issue 37),
    # three busy loops anywhere on the machine for the whole run. Unpinned, the
    # scheduler can starve one rank through a whole window: in the fresh-clone
    # CI rehearsal of session 8 rank 1 worked 9.1 ms a step against rank 0's
    # 5.2 and was named (straggler-rank, load-imbalance); here 1 run in 5 with
    # one more busy process. Its wall time alone cannot tell the machine's
    # slowness from the program's, so: two clean runs of at most three (the
    # rule this guards named equal ranks in most runs).
    prog = PROGRAM.replace(
        'os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[int(os.environ["RANK"])]})\n',
        "")
    assert "sched_setaffinity" not in prog
    (tmp_path / "prog.py").write_text(prog)
    outcomes = []
    busy = [subprocess.Popen([sys.executable, "-c", BUSY_ANYWHERE]) for _ in range(3)]
    try:
        while len(outcomes) < 3 and sum(o is None for o in outcomes) < 2:
            outcomes.append(_forbidden(_run_two_ranks(tmp_path)) or None)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert sum(o is None for o in outcomes) >= 2, ("two equal ranks", outcomes)


def _run_two_ranks(tmp_path) -> dict:
    """prog.py's two ranks under `fastenough run --analyze-in-job` (again when
    torch's gloo teardown aborts): the report, with both ranks' traces."""
    for _ in range(3):
        rd = tmp_path / "rd"
        if rd.exists():
            shutil.rmtree(rd)
        r = run_cli("run", "--no-history", "--analyze-in-job", "--trace-steps", "12",
                    "--trace-memory", "512", "--run-dir", rd, "--json",
                    tmp_path / "report.json", "--", sys.executable, "-m",
                    "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                    "prog.py", cwd=tmp_path, env={**os.environ, "OMP_NUM_THREADS": "1"},
                    timeout=300)
        if not (r.returncode != 0 and TORCH_ABORT in r.stderr):
            break
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert len(report["run_details"]["traces"]) == 2, report["run_details"]["traces"]
    return report
