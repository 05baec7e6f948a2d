"""`fastenough run --analyze-in-job`: each rank analyses its own trace at exit and
rank 0 writes the ranks' summaries into the run directory, so that the
supervisor merges them (cpp/fastenough/pipeline/merge.h) instead of reading every
trace again after the job (docs/run-directory.md, rank-summaries/).

  * The analysis runs last at exit (the agent's atexit handler was registered
    before the program's, so the program's own exit work is done) through the
    core's summarize_trace: the rank's fastenough.rank-summary/1 document.
  * The summaries travel to rank 0 over a gloo group of the agent's own, made
    only here, at exit, on a key prefix of the store the program's default
    group used (held from while that group was alive: the program may have
    destroyed it by now). The program's groups are never used or counted
    (torch numbers the groups that new_group makes; this one is no such group).
  * Waiting for the other ranks is bounded by in_job_timeout seconds (default
    60): a rank that crashed or never came costs the others that much at most,
    and rank 0 names it in rank-summaries/in-job.json.
  * The ranks' profiler windows start at the same step (window_agreed), so
    that the summaries cover the same steps and cross-rank findings
    (straggler-rank) match the same collectives: each rank starts its window
    once all ranks are ready, at the step the last one was ready at plus 3.
  * Without torch.distributed (one process) the summary is written in place.
  * Nothing here may change the program's exit status or output: every failure
    is logged to agent.log and ends the in-job analysis, never the process.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time

SUMMARY_DIR = "rank-summaries"
MANIFEST = "in-job.json"
SUFFIX = ".summary.json"
DEFAULT_TIMEOUT_S = 60.0
_PREFIX = "fastenough/in-job/"
_WINDOW = "fastenough/window/"
_TAG_HEAD, _TAG_BODY = 7101, 7102
# Steps a rank ready for its window waits for the other ranks before it starts
# alone; and steps ahead of the last one ready at which all start (ranks that
# step together differ by at most one step when they read it).
ALIGN_WAIT_STEPS = 20
ALIGN_AHEAD_STEPS = 3


def summary_name(trace_rel: str) -> str:
    """rank0.pt.trace.json.gz -> rank0.summary.json (rank0.<pid>... alike)."""
    base = os.path.basename(trace_rel)
    for ext in (".pt.trace.json.gz", ".json.gz", ".json"):
        if base.endswith(ext):
            base = base[: -len(ext)]
            break
    return base + SUFFIX


class InJobAnalysis:
    def __init__(self, agent) -> None:
        self.agent = agent
        self.timeout_s = float(agent.opts.get("in_job_timeout") or DEFAULT_TIMEOUT_S)
        self.store = None  # the program's default group's store, while it was alive
        self.rank: int | None = None
        self.world: int | None = None
        self._ready_at: int | None = None  # the step this rank was ready for its window at
        self._window_at: int | None = None  # the step all ranks start their window at

    def capture(self) -> None:
        """Hold the default group's store and place (cheap; once): the program
        may destroy its group before exit, the store must outlive it."""
        if self.store is not None:
            return
        dist = sys.modules.get("torch.distributed")
        try:
            if dist is None or not dist.is_available() or not dist.is_initialized():
                return
            from torch.distributed import distributed_c10d

            self.rank, self.world = dist.get_rank(), dist.get_world_size()
            self.store = distributed_c10d._get_default_store()
        except Exception:  # noqa: BLE001 - without it the summary is written in place
            self.store = None

    def window_agreed(self, index: int) -> bool:
        """Whether this rank, ready for its profiler window at step `index`, may
        start it now: once every rank was ready (the store counts them), at the
        same step on all. A few store calls per step while it waits, none after."""
        if self._window_at is not None:
            return index >= self._window_at
        self.capture()
        if self.store is None or not self.world or self.world < 2:
            self._window_at = index
            return True
        store = self.store
        try:
            if self._ready_at is None:
                self._ready_at = index
                store.set(f"{_WINDOW}ready/{self.rank}", str(index))
                store.add(f"{_WINDOW}ready", 1)
            if store.add(f"{_WINDOW}ready", 0) >= self.world:
                last = max(int(store.get(f"{_WINDOW}ready/{r}")) for r in range(self.world))
                self._window_at = last + ALIGN_AHEAD_STEPS
            elif index - self._ready_at >= ALIGN_WAIT_STEPS:
                self._window_at = index
                self.agent.dir.append_log(
                    f"fastenough agent (rank {self.rank}): the other ranks were not ready for "
                    f"the profiler window within {ALIGN_WAIT_STEPS} steps; it starts alone\n")
        except Exception as e:  # noqa: BLE001 - the window then starts unaligned
            self._window_at = index
            self.agent.dir.append_log(f"fastenough agent (rank {self.rank}): profiler windows "
                                      f"not aligned: {type(e).__name__}: {e}\n")
        return self._window_at is not None and index >= self._window_at

    # ------------------------------------------------------------------ at exit
    def run(self) -> None:
        agent = self.agent
        t0 = time.monotonic()
        try:
            self.capture()
            rank, text, why = self._summarise()
            if self.store is None or not self.world or self.world < 2:
                self._write_local(rank, text, why)
            else:
                self._gather(text, why, t0 + self.timeout_s)
        except Exception as e:  # noqa: BLE001 - never the program's exit
            agent.dir.append_log(f"fastenough agent (pid {os.getpid()}): in-job analysis "
                                 f"stopped: {type(e).__name__}: {e}\n")

    def _summarise(self) -> tuple[int, str | None, str | None]:
        """(rank, summary JSON or None, why there is none)."""
        agent = self.agent
        info = agent.window.info or {}
        rel = info.get("trace")
        rank = self.rank if self.rank is not None else agent.rank_or_0
        if not rel:
            return rank, None, info.get("skipped") or "no profiler window was recorded"
        from fastenough import _core
        from fastenough.agent.process_record import _roots

        try:
            trace_rank, text = _core.summarize_trace(agent.dir.file(rel), frame_roots=_roots(agent))
        except Exception as e:  # noqa: BLE001 - the supervisor analyses the trace instead
            return rank, None, f"the trace was not analysed: {type(e).__name__}: {e}"
        self.trace_rel = rel
        return trace_rank, text, None

    def _write_local(self, rank: int, text: str | None, why: str | None) -> None:
        d = self.agent.dir
        os.makedirs(d.file(SUMMARY_DIR), exist_ok=True)
        if text is not None:
            _write_atomic(d.file(SUMMARY_DIR, summary_name(self.trace_rel)), text)
        if self.world and self.world > 1:
            return  # a rank with no group to send on: its summary is in place; no manifest
        self._write_manifest({str(rank): why} if text is None else {}, [rank] if text else [],
                             self.world or 1)

    def _write_manifest(self, missing: dict, received: list[int], world: int) -> None:
        doc = {"schema": "fastenough.in-job/1", "world_size": world,
               "received": sorted(received), "missing": missing,
               "timeout_s": self.timeout_s}
        _write_atomic(self.agent.dir.file(SUMMARY_DIR, MANIFEST), json.dumps(doc, indent=1) + "\n")

    def _gather(self, text: str | None, why: str | None, deadline: float) -> None:
        import torch
        import torch.distributed as dist

        def left() -> datetime.timedelta:
            return datetime.timedelta(seconds=max(0.1, deadline - time.monotonic()))

        rank, world = self.rank, self.world
        body = (text or "").encode() + (why or "").encode()
        head = torch.tensor([len((text or "").encode()), len((why or "").encode())],
                            dtype=torch.int64)
        missing: dict[str, str] = {}
        received: list[int] = []
        try:
            pg = dist.ProcessGroupGloo(dist.PrefixStore(_PREFIX, self.store), rank, world,
                                       left())
        except Exception as e:  # noqa: BLE001 - a rank never came: the others go on
            if rank == 0:
                self._finish_root(text, why, {str(r): f"no gather group within "
                                              f"{self.timeout_s:g} s ({_short(e)})"
                                              for r in range(1, world)}, [])
            raise
        if rank != 0:
            try:
                pg.send([head], 0, _TAG_HEAD).wait(left())
                if len(body):
                    pg.send([torch.frombuffer(bytearray(body), dtype=torch.uint8)], 0,
                            _TAG_BODY).wait(left())
            finally:
                _barrier(pg, left)
            return
        texts: dict[int, str] = {}
        for r in range(1, world):
            try:
                h = torch.zeros(2, dtype=torch.int64)
                pg.recv([h], r, _TAG_HEAD).wait(left())
                n_text, n_why = int(h[0]), int(h[1])
                data = b""
                if n_text + n_why:
                    buf = torch.empty(n_text + n_why, dtype=torch.uint8)
                    pg.recv([buf], r, _TAG_BODY).wait(left())
                    data = buf.numpy().tobytes()
                if n_text:
                    texts[r] = data[:n_text].decode()
                    received.append(r)
                else:
                    missing[str(r)] = data[n_text:].decode(errors="replace") or "no summary"
            except Exception as e:  # noqa: BLE001 - this rank is missing; the next may not be
                missing[str(r)] = f"no summary within {self.timeout_s:g} s ({_short(e)})"
        _barrier(pg, left)
        self._finish_root(text, why, missing, received, texts)

    def _finish_root(self, text, why, missing, received, texts=None) -> None:
        d = self.agent.dir
        os.makedirs(d.file(SUMMARY_DIR), exist_ok=True)
        if text is not None:
            _write_atomic(d.file(SUMMARY_DIR, summary_name(self.trace_rel)), text)
            received = [0, *received]
        else:
            missing = {"0": why or "no summary", **missing}
        for r, t in (texts or {}).items():
            _write_atomic(d.file(SUMMARY_DIR, f"rank{r}{SUFFIX}"), t)
        self._write_manifest(missing, received, self.world)


def _barrier(pg, left) -> None:
    """Every rank done with the group before any destroys it: torch 2.13 aborts a
    process ("terminate called without an active exception") whose gloo group
    is destroyed while a peer still uses it."""
    try:  # noqa: SIM105
        pg.barrier().wait(left())
    except Exception:  # noqa: BLE001, S110 - a peer gone: nothing left to protect
        pass


def _short(e: BaseException) -> str:
    line = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {line[:200]}"


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
