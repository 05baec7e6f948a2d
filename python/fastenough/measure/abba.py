"""fastenough.abba: an in-process A/B of two implementations, A B B A interleaved.

    r = fastenough.abba(old_attention, new_attention, inputs, rounds=2)
    print(r)     # B/A time ratio with its interval; outputs per item

Both functions get the same inputs and the same warmup (one pass each over all
inputs by default). Every call is timed alone between device-synchronised marks.
Each A B B A block yields, per input, the pairs (A1, B1) and (A2, B2): slow drift
of the machine (clocks, other tenants) falls equally on A and B. The ratio B/A
(the geometric mean of the pairs' ratios) and its Student-t interval over the
pairs' log ratios come from the C++ core (_core.paired_ratio). Outputs are compared per input
(the first A and B calls), exactly or within atol/rtol, and reported apart from
the timing verdict: a faster B with different answers is not a speed-up.
"""

from __future__ import annotations

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
            f"fastenough.abba on {self.device}: {self.rounds} x A B B A, {r['pairs']} pairs",
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
    `rounds` A B B A blocks after `warmup` passes of each over all inputs.
    Outputs are compared exactly, or with torch.allclose(atol, rtol) when given."""
    inputs = list(inputs)
    if not inputs:
        raise UsageError("abba needs at least one input")
    if rounds < 1 or warmup < 0:
        raise UsageError("rounds must be >= 1 and warmup >= 0")
    timer = timer_for(device if device is not None else infer_device(fn_a, (inputs[0],), {}))

    def leg(fn, keep: list | None) -> list[float]:
        out = []
        for x in inputs:
            timer.synchronize()
            start = timer.mark()
            y = fn(x)
            end = timer.mark()
            timer.synchronize()
            out.append(timer.seconds_between(start, end))
            if keep is not None:
                keep.append(y)
        return out

    for _ in range(warmup):  # the same warmup for both, interleaved too
        leg(fn_a, None)
        leg(fn_b, None)
    out_a: list = []
    out_b: list = []
    a_s: list[float] = []
    b_s: list[float] = []
    for r in range(rounds):
        first = r == 0
        a1 = leg(fn_a, out_a if first else None)
        b1 = leg(fn_b, out_b if first else None)
        b2 = leg(fn_b, None)
        a2 = leg(fn_a, None)
        a_s += a1 + a2
        b_s += b1 + b2
    ratio = _core.paired_ratio(a_s, b_s, confidence=confidence)
    outputs = []
    for i, (ya, yb) in enumerate(zip(out_a, out_b, strict=True)):
        ok, how = compare_outputs(ya, yb, atol, rtol)
        outputs.append({"index": i, "agree": ok, "how": how})
    notes = ["outputs are compared on the first A and B calls of each input"]
    return AbbaResult(a_s=a_s, b_s=b_s, ratio=ratio, verdict=_verdict(ratio), outputs=outputs,
                      device=timer.device, rounds=rounds, notes=notes)
