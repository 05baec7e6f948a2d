"""fastenough.sweep_batch: the throughput knee of the batch size.

    r = fastenough.sweep_batch(lambda b: model(b), lambda n: make_inputs(n), current=8)
    print(r)          # one line per size; r.knee is the size to use

Per candidate size (doubling around `current` by default): build the batch, run a
few warmup calls, then `rounds` timed rounds (each repeats the step for about
min_round_s, 20 ms) with device-synchronised boundaries;
items/s (and tokens/s) from the median round (C++ summary), the allocator's peak
over the timed calls. The first out-of-memory (CUDA, NPU or the CPU's
MemoryError) ends the sweep at that size. The knee (C++ knee_index) is the
smallest size within `within` (5%) of the best throughput.

A bigger batch can change results, not only speed (padding statistics, dynamic
calibration, RNG streams, batch norm in train mode): declared or detected, the
result is labelled a protocol change.
"""

from __future__ import annotations

import json
import math
import os
import sys
import warnings
from dataclasses import dataclass, field

from fastenough import _core
from fastenough.errors import MeasurementWarning, UsageError
from fastenough.measure.timers import infer_device, timer_for
from fastenough.measure.timers.base import is_out_of_memory
from fastenough.render.units import fmt_bytes


def default_sizes(current: int, count: int = 6) -> list[int]:
    """Two halvings below `current`, then doublings: 8 -> 2, 4, 8, 16, 32, 64, 128, 256."""
    below = sorted({max(1, current // 4), max(1, current // 2)} - {current})
    return below + [current * 2**k for k in range(count)]


def batch_norm_in_train_mode(model) -> bool:
    torch = sys.modules.get("torch")
    if torch is None or model is None:
        return False
    bn = torch.nn.modules.batchnorm._BatchNorm
    return any(isinstance(m, bn) and m.training for m in model.modules())


@dataclass
class SweepResult:
    points: list[dict]  # one per size tried, in size order
    knee: int | None  # the size to use; None when no size ran
    best: int | None  # the size with the highest items/s
    within: float
    device: str
    protocol_change: bool
    semantics: list[str]  # why batching may change results
    out_of_memory_at: int | None = None
    notes: list[str] = field(default_factory=list)
    # Why the figures may not be trusted (noisy rounds, throughput that grew
    # faster than the batch), as fastenough.time warns for its rounds.
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"points": self.points, "knee": self.knee, "best": self.best,
                "within": self.within, "device": self.device,
                "protocol_change": self.protocol_change, "semantics": self.semantics,
                "out_of_memory_at": self.out_of_memory_at, "notes": self.notes,
                "warnings": self.warnings}

    def __repr__(self) -> str:
        has_tokens = any(p.get("tokens_per_s") for p in self.points)
        head = (f"knee at batch {self.knee} (smallest within {self.within:.0%} of the best, "
                f"batch {self.best})" if self.knee is not None else "no batch size ran")
        lines = [f"fastenough.sweep_batch on {self.device}: {head}"]
        for p in self.points:
            if p["status"] != "ok":
                lines.append(f"  batch {p['size']:>6}  {p['status']}")
                continue
            mark = "  <- knee" if p["size"] == self.knee else ""
            tok = f"  {p['tokens_per_s']:>12.1f} tokens/s" if has_tokens else ""
            lines.append(f"  batch {p['size']:>6}  {p['items_per_s']:>12.1f} items/s{tok}  "
                         f"peak {fmt_bytes(p['peak_bytes'])}{mark}")
        if self.protocol_change:
            lines.append("  PROTOCOL CHANGE: batching may change results "
                         f"({', '.join(self.semantics)}); compare outputs, label the result")
        lines += [f"  WARNING: {w}" for w in self.warnings]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _count(fn, batch, default):
    return default if fn is None else int(fn(batch))


def _measure_size(timer, run_fn, batch, rounds: int, warmup: int, min_round_s: float
                  ) -> tuple[list[float], int, int]:
    """(seconds of each round, calls per round, peak bytes). A round repeats the call
    until it lasts about min_round_s (estimated from one timed call), so small batches
    of a fast step are not lost in the clock's resolution and the sync cost."""
    for _ in range(warmup):
        run_fn(batch)
    timer.synchronize()
    timer.reset_peak_memory()
    start = timer.mark()
    run_fn(batch)
    end = timer.mark()
    timer.synchronize()
    one = timer.seconds_between(start, end)
    calls = max(1, min(10_000, math.ceil(min_round_s / one))) if one > 0 else 1
    seconds = []
    for _ in range(rounds):
        timer.synchronize()
        start = timer.mark()
        for _ in range(calls):
            run_fn(batch)
        end = timer.mark()
        timer.synchronize()
        seconds.append(timer.seconds_between(start, end))
    return seconds, calls, timer.peak_memory_bytes()


# Rounds that spread more than this share of their median are noisy
# (torch.utils.benchmark and fastenough.time warn above the same share).
NOISY_SPREAD = 0.1
# Items/s can grow at most as fast as the batch (a step's fixed cost shared by
# more items); beyond this margin over the batch ratio one of the two sizes
# was measured wrong (an outlier under load picked a knee at 256 with 1.52 M
# items/s beside 35 to 254 k for the other sizes, issue 24).
SUPERLINEAR_MARGIN = 1.25


def noise_warnings(ok: list[dict], chosen: set) -> list[str]:
    """Warnings about the sweep's own figures: noisy rounds per size, and
    throughput that grew faster than the batch between two sizes."""
    out = []
    suspect = set()
    for p in ok:
        rounds = p.get("round_s") or []
        if len(rounds) >= 2:
            med = _core.median([float(x) for x in rounds])
            spread = (max(rounds) - min(rounds)) / med if med > 0 else 0.0
            if spread > NOISY_SPREAD:
                suspect.add(p["size"])
                out.append(f"batch {p['size']}: its rounds spread by {spread:.0%} of their "
                           f"median (> {NOISY_SPREAD:.0%}): other work on the machine or "
                           "device; raise rounds or measure on a quiet machine")
    for a, b in zip(ok, ok[1:], strict=False):
        ra, rb = a.get("items_per_s"), b.get("items_per_s")
        if not ra or not rb:
            continue
        grew, items = rb / ra, b["size"] / a["size"]
        if grew > SUPERLINEAR_MARGIN * items:
            suspect.update((a["size"], b["size"]))
            out.append(f"items/s at batch {b['size']} is {grew:.1f}x batch {a['size']}'s for "
                       f"{items:g}x the items: more than batching can explain, one of the "
                       "two was measured wrong")
    if suspect & {c for c in chosen if c is not None}:
        out.append("the knee or the best size rests on a suspect measurement: run the sweep "
                   "again before choosing")
    return out


def sweep_batch(run_fn, make_batch, sizes=None, *, current: int = 1, items=None, tokens=None,
                within: float = 0.05, rounds: int = 3, warmup: int = 2,
                min_round_s: float = 0.02, device=None, batch_dependent=(), model=None
                ) -> SweepResult:
    """Measure steady throughput at a few batch sizes and pick the knee.

    run_fn(batch) runs one step; make_batch(size) builds a batch of `size` items.
    sizes: the candidates (default: around `current`, doubling). items(batch) /
    tokens(batch): how many items / tokens a batch holds (default items = size; no
    tokens). batch_dependent: what in the workload depends on the batch ("padding",
    "calibration", "rng", "batch_norm", ...); model: checked for batch norm in train
    mode. Either makes the result a protocol change, with a warning. Each of the
    `rounds` timed rounds repeats the step until it lasts about min_round_s."""
    sizes = sorted(set(default_sizes(int(current)) if sizes is None else sizes))
    if not sizes or any(not isinstance(s, int) or s < 1 for s in sizes):
        raise UsageError(f"sizes must be batch sizes >= 1, not {sizes!r}")
    if rounds < 1 or warmup < 0:
        raise UsageError("rounds must be >= 1 and warmup >= 0")
    semantics = [str(s) for s in batch_dependent]
    if batch_norm_in_train_mode(model) and "batch_norm" not in semantics:
        semantics.append("batch_norm (train mode)")
    if semantics:
        warnings.warn(f"fastenough.sweep_batch: batch-dependent semantics ({', '.join(semantics)})"
                      ": a different batch size is a protocol change, not a free speed-up",
                      MeasurementWarning, stacklevel=2)
    points: list[dict] = []
    timer = None
    oom_at = None
    for size in sizes:
        try:
            batch = make_batch(size)
            if timer is None:
                timer = timer_for(device if device is not None else
                                  infer_device(model, (batch,), {}))
            seconds, calls, peak = _measure_size(timer, run_fn, batch, rounds, warmup,
                                                 min_round_s)
        except Exception as exc:  # noqa: BLE001 - only out-of-memory is caught, see below
            if not is_out_of_memory(exc):
                raise
            batch = None
            if timer is not None:
                timer.release_cached_memory()
            oom_at = size
            points.append({"size": size, "status": f"out of memory ({type(exc).__name__})"})
            break
        n_items, n_tokens = _count(items, batch, size), _count(tokens, batch, None)
        median = _core.summarize(seconds)["median"] / calls  # seconds per step
        points.append({
            "size": size, "status": "ok", "round_s": seconds, "calls_per_round": calls,
            "median_s": median,
            "items": n_items, "items_per_s": n_items / median if median > 0 else None,
            "tokens": n_tokens,
            "tokens_per_s": n_tokens / median if n_tokens and median > 0 else None,
            "peak_bytes": peak})
        del batch
    ok = [p for p in points if p["status"] == "ok"]
    rates = [p["items_per_s"] or float("nan") for p in ok]
    k = _core.knee_index(rates, within)
    best = max(ok, key=lambda p: p["items_per_s"] or 0.0)["size"] if ok else None
    notes = []
    if timer is not None and timer.kind == "cpu":
        notes.append("peak memory is not measured on the cpu (no caching allocator counters)")
    if oom_at is not None:
        notes.append(f"batch {oom_at} ran out of memory; larger sizes were not tried")
    elif ok and k == len(ok) - 1:
        notes.append("the knee is the largest size tried: throughput may still grow; try "
                     "larger sizes")
    knee = ok[k]["size"] if k >= 0 else None
    warns = noise_warnings(ok, {knee, best})
    for w in warns:
        warnings.warn(f"fastenough.sweep_batch: {w}", MeasurementWarning, stacklevel=2)
    result = SweepResult(points=points, knee=knee, best=best,
                         within=within, device=timer.device if timer else "cpu",
                         protocol_change=bool(semantics), semantics=semantics,
                         out_of_memory_at=oom_at, notes=notes, warnings=warns)
    _keep_in_run_dir(result)
    return result


def _keep_in_run_dir(result: SweepResult) -> None:
    """Under `fastenough run`, keep the sweep as <run dir>/sweep_batch.json."""
    runtime = sys.modules.get("fastenough.agent.runtime")
    agent = runtime.get_agent() if runtime is not None else None
    if agent is None or not getattr(agent, "enabled", False):
        return
    try:
        path = agent.dir.file("sweep_batch.json")
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result.to_dict(), f)
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - a record we cannot keep must not stop the program
        agent.fail("sweep_batch")
