"""fastenough.abba: an in-process A/B of two implementations, A B B A interleaved.

    r = fastenough.abba(old_attention, new_attention, inputs, rounds=2)
    print(r)     # B/A time ratio with its interval; outputs per item

Both functions get the same inputs and the same warmup (one pass each over all
inputs by default). Every call is timed alone between device-synchronised marks.
A round runs, for each input, the block A B B A (or B A A B: the side that
goes first alternates from input to input and from round to round), and each
block yields the pairs (A1, B1) and (A2, B2). The calls of a pair run back to
back on one input, so whatever the machine does around them (clocks, other
tenants, a loaded core) falls on both; timing all inputs through A, then all
through B, let a burst of load land on one side's whole leg, and the pairs
that shared it made the interval too narrow (identical 384 x 384 matmuls on two
cores at load 8-15: 13-24% of 95% intervals excluded 1; interleaved per input:
1-3%; bench/bench_abba_calibration.py). The ratio B/A
(the geometric mean of the pairs' ratios) and its Student-t interval over the
pairs' log ratios come from the C++ core (_core.paired_ratio).

Nothing but the call runs between its marks, and both sides run in the same
state (issue 37: identical functions read B/A 1.06-1.10). Outputs are never
kept through the timed rounds: keeping the first round's outputs for the
comparison held buffers the allocator would have reused, so the calls after
them wrote into fresh, cache-cold memory, and B's calls all came after A's
(a 256 x 256 matmul: 244-281 us for A1 of the first round, 293-308 us for its
B1 and B2, 196 us once warm; B/A 1.17-1.20). Each output is released after its
end mark, not at the next call's assignment, and Python's garbage collector is
paused for the timed rounds. Outputs are compared per input
on an untimed pass (A then B on each input, the first warmup pass; after the
timed rounds when warmup=0), exactly or within atol/rtol, and reported apart
from the timing verdict: a faster B with different answers is not a speed-up.
"""

from __future__ import annotations

import gc
import math
import sys
from dataclasses import dataclass, field

from fastenough import _core
from fastenough.errors import UsageError
from fastenough.measure.timers import infer_device, timer_for


def compare_outputs(a, b, atol: float | None, rtol: float | None) -> tuple[bool, str]:
    """(agree, how): tensors with torch.equal / torch.allclose, containers item by item,
    everything else with ==."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape:
            return False, f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}"
        if atol is None and rtol is None:
            if torch.equal(a, b):
                return True, "equal"
        elif torch.allclose(a, b, atol=atol or 0.0, rtol=rtol or 0.0):
            return True, "within tolerance"
        diff = (a.double() - b.double()).abs().max().item() if a.numel() else 0.0
        return False, f"max abs difference {diff:.3g}"
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return False, f"lengths differ: {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            ok, how = compare_outputs(x, y, atol, rtol)
            if not ok:
                return False, f"[{i}]: {how}"
        return True, "equal" if atol is None and rtol is None else "within tolerance"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False, "keys differ"
        for k in a:
            ok, how = compare_outputs(a[k], b[k], atol, rtol)
            if not ok:
                return False, f"[{k!r}]: {how}"
        return True, "equal" if atol is None and rtol is None else "within tolerance"
    if isinstance(a, float) and isinstance(b, float) and (atol is not None or rtol is not None):
        ok = math.isclose(a, b, abs_tol=atol or 0.0, rel_tol=rtol or 0.0)
        return ok, "within tolerance" if ok else f"{a!r} vs {b!r}"
    ok = a == b
    return bool(ok), "equal" if ok else f"{a!r} vs {b!r}"


@dataclass
class AbbaResult:
    a_s: list[float]  # per pair, the A call's device time
    b_s: list[float]  # per pair, the B call's device time (same input, same block)
    ratio: dict  # _core.paired_ratio(a_s, b_s): B/A
    verdict: str
    outputs: list[dict]  # per input: {"index", "agree", "how"}
    device: str
    rounds: int
    notes: list[str] = field(default_factory=list)

    @property
    def outputs_agree(self) -> bool:
        return all(o["agree"] for o in self.outputs)

    def to_dict(self) -> dict:
        r = {k: (None if isinstance(v, float) and math.isnan(v) else v)
             for k, v in self.ratio.items()}
        return {"a_s": self.a_s, "b_s": self.b_s, "ratio_b_over_a": r, "verdict": self.verdict,
                "outputs": self.outputs, "outputs_agree": self.outputs_agree,
                "device": self.device, "rounds": self.rounds, "notes": self.notes}

    def __repr__(self) -> str:
        r = self.ratio
        differ = [o for o in self.outputs if not o["agree"]]
        lines = [
            f"fastenough.abba on {self.device}: {self.rounds} x A B B A per input, "
            f"{r['pairs']} pairs",
            f"  time B/A = {r['ratio']:.3f}  ({r['confidence']:.0%} interval "
            f"{r['low']:.3f} .. {r['high']:.3f}, {r['method']})",
            f"  timing: {self.verdict}",
            f"  outputs: {len(self.outputs) - len(differ)}/{len(self.outputs)} inputs agree"
            + (f"; first difference at input {differ[0]['index']}: {differ[0]['how']}"
               if differ else ""),
        ]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _verdict(r: dict) -> str:
    low, high = r["low"], r["high"]
    if math.isnan(low) or math.isnan(high):
        return "insufficient evidence (too few pairs for an interval)"
    if high < 1:
        return f"B is faster: B takes {r['ratio']:.2f}x the time of A"
    if low > 1:
        return f"B is slower: B takes {r['ratio']:.2f}x the time of A"
    return "no difference detected (the interval contains 1)"


def abba(fn_a, fn_b, inputs, rounds: int = 2, *, warmup: int = 1, atol: float | None = None,
         rtol: float | None = None, confidence: float = 0.95, device=None) -> AbbaResult:
    """Compare fn_b against fn_a on the same inputs (each called as fn(input)):
    `rounds` rounds of an A B B A block per input (B A A B for every other
    block) after `warmup` passes of each over all inputs.
    Outputs are compared exactly, or with torch.allclose(atol, rtol) when given."""
    inputs = list(inputs)
    if not inputs:
        raise UsageError("abba needs at least one input")
    if rounds < 1 or warmup < 0:
        raise UsageError("rounds must be >= 1 and warmup >= 0")
    timer = timer_for(device if device is not None else infer_device(fn_a, (inputs[0],), {}))

    def timed(fn, x) -> float:
        timer.synchronize()
        start = timer.mark()
        y = fn(x)
        end = timer.mark()
        timer.synchronize()
        del y  # released here, outside the marks, on both sides alike
        return timer.seconds_between(start, end)

    def compared() -> list[dict]:
        """One untimed pass: A then B on each input, the outputs compared and dropped."""
        out = []
        for i, x in enumerate(inputs):
            ya = fn_a(x)
            yb = fn_b(x)
            timer.synchronize()
            ok, how = compare_outputs(ya, yb, atol, rtol)
            del ya, yb
            out.append({"index": i, "agree": ok, "how": how})
        return out

    outputs = compared() if warmup > 0 else []
    for _ in range(warmup - 1):  # the same warmup for both, interleaved too
        for x in inputs:
            timed(fn_a, x)
            timed(fn_b, x)
    a_s: list[float] = []
    b_s: list[float] = []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a collection inside one side's marks is not that side's time
    try:
        for r in range(rounds):
            for i, x in enumerate(inputs):
                a_first = (i + r) % 2 == 0
                first, second = (fn_a, fn_b) if a_first else (fn_b, fn_a)
                t1 = timed(first, x)
                t2 = timed(second, x)
                t3 = timed(second, x)
                t4 = timed(first, x)
                # The pairs (A1, B1) and (A2, B2), whichever side went first.
                a_s += [t1, t4] if a_first else [t2, t3]
                b_s += [t2, t3] if a_first else [t1, t4]
    finally:
        if gc_was_enabled:
            gc.enable()
    if warmup == 0:
        outputs = compared()
    ratio = _core.paired_ratio(a_s, b_s, confidence=confidence)
    when = ("the first warmup pass" if warmup > 0 else "a pass after the timed rounds")
    notes = [f"outputs are compared on an untimed pass, A then B on each input ({when})"]
    return AbbaResult(a_s=a_s, b_s=b_s, ratio=ratio, verdict=_verdict(ratio), outputs=outputs,
                      device=timer.device, rounds=rounds, notes=notes)
