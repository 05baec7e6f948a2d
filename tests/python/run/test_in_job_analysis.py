"""`fastenough run --analyze-in-job` (docs/run-directory.md, rank-summaries/):
real torchrun jobs on the CPU with gloo. Each rank summarises its own trace at
exit, rank 0 gathers the summaries over fastenough's own gloo group and the
report is merged from them. Checked here: the program behaves as without
fastenough (exit status, output, files), a planted straggler is named with the
rank and the lateness planted, the in-job report is the offline analysis of
the same traces, and a rank that never reports is named while the report falls
back to the traces."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

torch = pytest.importorskip("torch")
if not torch.distributed.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

# The planted straggler's sleep before each step: long beside what a loaded
# machine does to the ranks' arrivals (10 to 15 ms at load 8 to 10 on two
# cores, see _assert_planted), so that the lateness measured stays near it.
LATE_S = 0.100

# A tiny DDP loop. PROG_LATE_RANK sleeps LATE_S before each step, so it reaches
# every all-reduce LATE_S after the others; PROG_HEAVY_RANK does more work in
# each step (matmuls), which is what load-imbalance is about; PROG_VANISH_RANK leaves with
# os._exit after its work (no exit handlers: it never reports its summary).
PROGRAM = """\
import os, sys, time
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

late = int(os.environ.get("PROG_LATE_RANK", "-1"))
heavy = int(os.environ.get("PROG_HEAVY_RANK", "-1"))
# 552 x 552: about 3x the work of 384 in the same few ops (more ops would grow
# the profiler's memory and its guard would cut the heavy rank's window short).
extra = torch.randn(552, 552, generator=torch.Generator().manual_seed(1))
buf = torch.empty(552, 552)
vanish = int(os.environ.get("PROG_VANISH_RANK", "-1"))
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
g = torch.Generator().manual_seed(rank)
for step in range(int(os.environ.get("PROG_STEPS", "26"))):
    x = torch.randn(16, 32, generator=g)
    if rank == late:
        time.sleep(@LATE_S@)
    if rank == heavy:  # more work each step: about 15 ms of matmuls here
        for _ in range(4):  # into buffers: the heap does not grow with the work
            torch.mm(extra, extra, out=buf)
            torch.tanh(buf.div_(552), out=extra)
    loss = model(x).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"rank {rank} done loss {loss.item():.6f}", flush=True)
if rank == 0:
    torch.save(model.module.state_dict(), "model.pt")
    with open("out.txt", "w") as f:
        f.write("written by rank 0\\n")
# Without this barrier plain torch 2.13 aborts now and then ("terminate called
# without an active exception", about one run in six here, no fastenough
# involved); with it, rarely (TORCH_ABORT below).
dist.barrier()
dist.destroy_process_group()
if rank == vanish:
    os._exit(0)
""".replace("@LATE_S@", repr(LATE_S))

SINGLE = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(80):  # (16 were too few at load 4: no window, no summary)
    loss = model(torch.randn(16, 32)).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"done loss {loss.item():.6f}")
"""


def _torchrun(n: int) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            f"--nproc_per_node={n}", "prog.py"]


# torch 2.13's own abort at the exit of a gloo job ("terminate called without
# an active exception", SIGABRT): seen here about once in 30 plain runs of
# PROGRAM under load, with no fastenough involved, despite its barrier.
TORCH_ABORT = "terminate called without an active exception"
TRIES = 3


def _torch_aborted(proc) -> bool:
    return proc.returncode != 0 and TORCH_ABORT in proc.stderr


def _fresh(d: Path) -> None:
    for p in d.iterdir():
        if p.name != "prog.py":
            shutil.rmtree(p) if p.is_dir() else p.unlink()


def _job(tmp: Path, name: str, n: int, env: dict, *opts: str) -> tuple:
    """The job under `fastenough run --analyze-in-job` and plainly, each in its
    own directory: (fastenough's process, its run dir, its cwd, plain process, cwd).
    Either is run again when torch aborted it (TORCH_ABORT), at most TRIES times."""
    tool, plain = tmp / f"{name}-tool", tmp / f"{name}-plain"
    for d in (tool, plain):
        d.mkdir()
        (d / "prog.py").write_text(PROGRAM)
    full_env = {**os.environ, "OMP_NUM_THREADS": "1", **env}
    for _ in range(TRIES):
        _fresh(tool)
        run = run_cli("run", "--no-history", "--analyze-in-job", "--trace-gloo",
                      "--trace-steps", "12", "--run-dir", tool / "rd", "--json",
                      tool / "report.json", *opts, "--", *_torchrun(n), cwd=tool, env=full_env,
                      timeout=240)
        if not _torch_aborted(run):
            break
    for _ in range(TRIES):
        _fresh(plain)
        ref = subprocess.run(_torchrun(n), cwd=plain, env=full_env, capture_output=True,
                             text=True, timeout=240)
        if not _torch_aborted(ref):
            break
    return run, tool / "rd", tool, ref, plain


_LINE = re.compile(r"rank \d+ done loss \d+\.\d{6}")


def _same_behaviour(run, tool: Path, ref, plain: Path) -> None:
    assert ref.returncode == 0, ref.stderr
    assert run.returncode == ref.returncode, run.stderr
    # The ranks' lines, nothing else (in either order, and two ranks' writes to
    # the shared pipe may even interleave within a line, plain or not).
    assert sorted(_LINE.findall(run.stdout)) == sorted(_LINE.findall(ref.stdout))
    assert len(_LINE.findall(ref.stdout)) >= 2
    assert _LINE.sub("", run.stdout).split() == _LINE.sub("", ref.stdout).split() == []
    files = sorted(p.name for p in plain.iterdir())
    assert files == ["model.pt", "out.txt", "prog.py"]
    assert sorted(p.name for p in tool.iterdir() if p.name not in ("rd", "report.json")) == files
    assert (tool / "out.txt").read_text() == (plain / "out.txt").read_text()
    a, b = torch.load(tool / "model.pt"), torch.load(plain / "model.pt")
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def _straggler(report: dict) -> dict:
    found = [f for f in report["findings"] if f["code"] == "straggler-rank"]
    assert len(found) == 1, [f["code"] for f in report["findings"]]
    return found[0]


def _assert_planted(finding: dict, rank: int, ranks: int) -> None:
    ev = finding["evidence"]
    assert ev["rank"] == rank and ev["ranks"] == ranks
    assert ev["matched_collectives"] >= 4  # the windows may start some steps apart
    # The late rank reaches each all-reduce LATE_S after the others: the margin
    # (counted from the second-last arrival) is the planted sleep, give or take
    # what the scheduler of a loaded 2-core machine adds:
    #   above: the rank that slept is scheduled again late, which only ever
    #     adds to its lateness (32.7 and 34.8 ms for 30 ms at load 3 to 4, 42.3
    #     ms at load 7); 60% above still fails a lateness off by a whole extra
    #     step of the late rank (its sleep again);
    #   below: four ranks share two cores, so the others' own arrivals spread
    #     and the second-last one is that much nearer the late rank (26.8 ms
    #     for 30 ms at load 3 to 4, 18.6 ms at load 10: 11.5 ms less; issue 36).
    #     With a sleep of 100 ms, 25% below leaves 25 ms for that.
    late = ev["mean_late_ns"] / 1e9
    assert 0.75 * LATE_S <= late <= 1.6 * LATE_S, ev
    assert finding["verdict"] == "avoidable"


def _comparable(report: dict) -> dict:
    """What the trace analysis decides: findings and figures, not the run's
    own record or the tool's version."""
    keys = ("findings", "ranks", "top_kernels", "top_ops", "devices", "counters", "inputs",
            "avoidable")
    return {k: report.get(k) for k in keys}


def _summaries(rd: Path) -> list[str]:
    return sorted(p.name for p in (rd / "rank-summaries").iterdir())


@pytest.mark.parametrize("ranks, late", [(2, 1), (4, 2)])
def test_in_job_report_names_the_planted_straggler(tmp_path, ranks, late):
    run, rd, tool, ref, plain = _job(tmp_path, f"n{ranks}", ranks,
                                     {"PROG_LATE_RANK": str(late)})
    _same_behaviour(run, tool, ref, plain)
    names = [f"rank{r}.summary.json" for r in range(ranks)]
    assert _summaries(rd) == sorted(["in-job.json", *names])
    manifest = json.loads((rd / "rank-summaries" / "in-job.json").read_text())
    assert manifest["received"] == list(range(ranks)) and manifest["missing"] == {}
    report = json.loads((tool / "report.json").read_text())
    assert report["run_details"]["in_job"] == {
        "used": True, "ranks": list(range(ranks)), "missing_ranks": [], "why_missing": {}}
    assert "in-job analysis" not in run.stderr
    _assert_planted(_straggler(report), late, ranks)
    # Sleeping is not work: late, not loaded.
    assert "load-imbalance" not in {f["code"] for f in report["findings"]}

    # The same report as the offline analysis of the same traces: the run
    # directory analysed again, and `merge` of the summaries against `analyze`
    # of the traces.
    again = run_cli("report", rd, "--reanalyze", "--json", "--no-progress")
    assert again.returncode == 0, again.stderr
    offline = json.loads(again.stdout)
    assert "in_job" not in offline["run_details"]
    assert _comparable(report) == _comparable(offline)
    assert report["run_details"]["traces"] == offline["run_details"]["traces"]
    traces = sorted(str(p) for p in (rd / "trace").glob("*.pt.trace.json.gz"))
    assert len(traces) == ranks
    merged = run_cli("merge", rd / "rank-summaries", "--json")
    analysed = run_cli("analyze", *traces, "--json", "--no-progress")
    assert merged.returncode == 0 and analysed.returncode == 0, merged.stderr + analysed.stderr
    m, a = json.loads(merged.stdout), json.loads(analysed.stdout)
    assert _comparable(m) == _comparable(a)
    assert _straggler(m)["evidence"]["rank"] == late


def test_a_rank_with_more_work_per_step_is_named(tmp_path):
    # More steps than the straggler's: the heavy rank settles later, and its
    # window needs three steady steps before the job ends.
    run, rd, tool, ref, plain = _job(tmp_path, "heavy", 2,
                                     {"PROG_HEAVY_RANK": "1", "PROG_STEPS": "150"})
    _same_behaviour(run, tool, ref, plain)
    report = json.loads((tool / "report.json").read_text())
    found = [f for f in report["findings"] if f["code"] == "load-imbalance"]
    assert len(found) == 1, [f["code"] for f in report["findings"]]
    ev = found[0]["evidence"]
    assert ev["rank"] == 1 and ev["lightest_rank"] == 0, ev
    # The same op sequence plus the matmuls on rank 1: more work items a step.
    assert ev["work_items_per_step"] > ev["other_ranks_work_items_per_step"], ev
    # About 15 ms of matmuls more per step (2.6 ms measured with half of them
    # at 384 x 384), on a loop of about 1.2 ms of work; on CPU ranks read from
    # the lightest steps, which a loaded machine's scheduling does not stretch
    # (at load 11 the equal rank's typical step read 12 ms, its lightest 1.6
    # ms), and from the host ops' own time (gloo's all-reduce on its own
    # thread overlaps the matmuls).
    assert ev["lightest_step_work_ns"] - ev["other_ranks_lightest_step_work_ns"] > 6e6, ev
    assert found[0]["verdict"] == "avoidable" and found[0]["saving"]["upper_bound"]
    # Across the ranks, linked by their gloo all-reduces, the job's critical
    # path is mostly rank 1's work: rank 0 waits for it at each collective.
    job = report["critical_path"]["job"]
    assert job["status"] == "ok" and job["ranks"] == 2 and job["collectives"] >= 3, job
    gating = {r["rank"]: r for r in job["per_rank"]}
    # Of the path's work (its length also holds the all-reduces' own transfer,
    # which a loaded machine stretches: 66 of 166 ms at load 11, where rank 1
    # gated 74 ms, 45% of the length and 74% of the work).
    # Wall time: at load 4 to 11 on two cores rank 0 is descheduled too, and
    # with 5 ms of planted matmuls rank 1 gated only 1.2 to 2.2x rank 0 (3x
    # failed in CI); with 15 ms the planted work stands above that noise.
    assert gating[1]["gating_ns"] > 0.5 * job["work_ns"], job
    assert gating[1]["gating_ns"] > 1.5 * gating[0]["gating_ns"], job
    # Rank 0 waits for rank 1's work at the collectives. Not compared with rank 1's
    # own waits: at load 15 on two cores a descheduled rank 0 arrives late too, and
    # rank 1's waits (21 ms) exceeded rank 0's (14 ms) in one run of three; who
    # gates the path, above, is what the planted work decides.
    assert gating[0]["waited_ns"] > 0, job
    assert ev["job_critical_path_share"] > 0.3, ev
    assert "across 2 ranks, linked by" in (rd / "report.md").read_text()


# traceml's fault-injection protocol on 4 ranks: rank 1 computes BURN_S more
# inside its backward (matmuls in a gradient hook), rank 2's DataLoader sleeps
# LOADER_S a batch. DDP's all-reduce makes every rank's step as long as the
# slowest, so both are found from each rank's own work between collectives.
BURN_S, LOADER_S = 0.030, 0.040
FAULTS = """\
import os, time
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset

dist.init_process_group("gloo")
rank = dist.get_rank()
a, out = torch.randn(128, 128), torch.empty(128, 128)


class Data(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        return torch.randn(32), torch.randn(8)


def collate(items):
    if rank == 2:
        time.sleep(@LOADER_S@)
    return torch.stack([x for x, _ in items]), torch.stack([y for _, y in items])


def burn(grad):
    if rank == 1:
        end = time.perf_counter() + @BURN_S@
        while time.perf_counter() < end:
            torch.mm(a, a, out=out)
    return grad


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8))
net[0].weight.register_hook(burn)
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step, (x, y) in enumerate(DataLoader(Data(), batch_size=16, collate_fn=collate)):
    if step == 32:
        break
    loss = (model(x) - y).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.barrier()
dist.destroy_process_group()
""".replace("@BURN_S@", repr(BURN_S)).replace("@LOADER_S@", repr(LOADER_S))


def test_two_ranks_slow_for_two_reasons_are_both_named(tmp_path):
    # Before issue 37 load-imbalance named rank 2 only (its data loading made
    # it the heaviest, and rank 1 was compared with the median of ranks 0, 2
    # and 3); now each rank named leaves the typical step to the ranks that do
    # neither. --trace-memory: this Python-heavy loop's window at the default
    # bound stops after 3 or 4 steps (left for the memory guard, issue 37).
    (tmp_path / "prog.py").write_text(FAULTS)
    for _ in range(TRIES):
        # (no --trace-gloo: gloo jobs get the window by default)
        r = run_cli("run", "--no-history", "--analyze-in-job",
                    "--trace-steps", "8", "--trace-memory", "512", "--run-dir", tmp_path / "rd",
                    "--json", tmp_path / "report.json", "--", *_torchrun(4), cwd=tmp_path,
                    env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300)
        if not _torch_aborted(r):
            break
        shutil.rmtree(tmp_path / "rd")
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    named = {f["evidence"]["rank"]: f for f in report["findings"]
             if f["code"] == "load-imbalance"}
    assert sorted(named) == [1, 2], [(f["code"], f.get("evidence")) for f in report["findings"]]
    # Rank 2: its excess is its DataLoader's sleep, which dataloader-bound names too.
    loader = named[2]["evidence"]["dataloader_ns_per_step"] / 1e9
    assert 0.75 * LOADER_S <= loader <= 1.6 * LOADER_S, named[2]
    [dl] = [f for f in report["findings"] if f["code"] == "dataloader-bound"
            and f["evidence"]["dataloader_ns_per_step"] > 0.5 * LOADER_S * 1e9]
    assert dl["rank"] == 2, dl
    # The sleep holds rank 2 in every step: the wait of nearly every step is the
    # planted 40 ms (40.4 ms in 4 runs at load 10), and its share of the step is
    # most of it (8.5% before issue 37; 58-69% measured: the run report scales
    # the profiled step's 40 ms to its unprofiled 49 ms step by the profiled
    # step's length, 57-70 ms, so the share reads below the 82% planted).
    wait = dl["evidence"]["loop_wait_in_nearly_every_step_ns"] / 1e9
    assert 0.75 * LOADER_S <= wait <= 1.6 * LOADER_S, dl
    assert dl["saving"]["share_of_step"] > 0.4, dl
    # Only rank 2 waits for its loader; the all-reduces make nobody take turns.
    codes = [(f["code"], f["rank"]) for f in report["findings"]]
    assert {r for c, r in codes if c == "dataloader-bound"} == {2}, codes
    assert "devices-take-turns" not in {c for c, _ in codes}, codes
    # Rank 1: compute, not loading; its excess over the ranks that do neither is
    # the burn (its other ops stretch under load: 60% above still fails a
    # second burn).
    ev = named[1]["evidence"]
    assert ev.get("dataloader_ns_per_step", 0) < 0.25 * BURN_S * 1e9, ev
    excess = (ev["work_ns_per_step"] - ev["other_ranks_work_ns_per_step"]) / 1e9
    assert 0.75 * BURN_S <= excess <= 1.6 * BURN_S, ev
    assert named[1]["saving"]["per_step_ns"] > 0.5 * BURN_S * 1e9, named[1]


def test_a_rank_that_never_reports_is_named_and_the_traces_are_analysed(tmp_path):
    # Rank 1 leaves with os._exit: no exit handlers, so no summary. Rank 0
    # waits at most --in-job-timeout for it.
    run, rd, tool, ref, plain = _job(tmp_path, "vanish", 2,
                                     {"PROG_LATE_RANK": "1", "PROG_VANISH_RANK": "1"},
                                     "--in-job-timeout", "5")
    _same_behaviour(run, tool, ref, plain)
    report = json.loads((tool / "report.json").read_text())
    details = report["run_details"]["in_job"]
    assert details["used"] is False and details["missing_ranks"] == [1], details
    assert "5 s" in details["why_missing"]["1"], details
    assert details["note"] == "the report was made from the traces after the job"
    assert "in-job analysis: no summary from rank 1" in run.stderr
    assert "In-job analysis: no summary from rank 1" in (rd / "report.md").read_text()
    # Rank 0 wrote its own summary; the report comes from both traces.
    assert _summaries(rd) == ["in-job.json", "rank0.summary.json"]
    assert len(report["run_details"]["traces"]) == 2
    _assert_planted(_straggler(report), 1, 2)
    meta = json.loads((rd / "meta.json").read_text())
    wall_s = (meta["end_wall_ns"] - meta["start_wall_ns"]) / 1e9
    assert wall_s < 5 + 60, wall_s  # bounded by the timeout, not stuck


def test_single_process_analyses_in_place(tmp_path):
    (tmp_path / "single.py").write_text(SINGLE)
    plain = subprocess.run([sys.executable, "single.py"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120)
    run = run_cli("run", "--no-history", "--analyze-in-job", "--run-dir", tmp_path / "rd",
                  "--json", tmp_path / "report.json", "--", sys.executable, "single.py",
                  cwd=tmp_path, timeout=240)
    assert run.returncode == plain.returncode == 0, run.stderr
    assert run.stdout == plain.stdout
    rd = tmp_path / "rd"
    assert _summaries(rd) == ["in-job.json", "rank0.summary.json"]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["run_details"]["in_job"]["used"] is True
    again = run_cli("report", rd, "--reanalyze", "--json", "--no-progress")
    assert _comparable(report) == _comparable(json.loads(again.stdout))


def test_in_job_timeout_must_be_positive(tmp_path):
    r = run_cli("run", "--analyze-in-job", "--in-job-timeout", "0", "--", sys.executable, "-c",
                "pass", cwd=tmp_path)
    assert r.returncode == 2 and "--in-job-timeout" in r.stderr
