"""What fastenough.time returns: one TimingResult per window (raw rounds kept,
statistics from the C++ core), and WindowsResult for window="all" (the three side
by side with the plain/dummy ratio). Both print as a block one can paste into a
report and convert with to_dict() for JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fastenough import _core
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_share

# torch.utils.benchmark warns above the same spread.
NOISY_IQR_SHARE = 0.1


def _ns(seconds) -> str:
    return fmt_ns(None if seconds is None else seconds * 1e9)


def _finite(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@dataclass
class TimingResult:
    fn: str
    window: str
    definition: str
    device: str
    device_name: str
    inputs: list[str]  # dtype[shape] of the tensor inputs, in order
    n: int
    round_totals_s: list[float]  # raw: device time of each round of n calls
    warmup: dict
    flush_l2_bytes: int | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    margins_s: list[float] = field(default_factory=list)  # dummy: margin left per round
    summary: dict = field(default_factory=dict)  # per-call statistics, from _core.summarize

    def __post_init__(self) -> None:
        if not self.summary:
            self.summary = _core.summarize([t / self.n for t in self.round_totals_s])

    @property
    def rounds(self) -> int:
        return len(self.round_totals_s)

    @property
    def per_call_s(self) -> list[float]:
        return [t / self.n for t in self.round_totals_s]

    @property
    def median_s(self) -> float:
        return self.summary["median"]

    @property
    def iqr_s(self) -> float:
        return self.summary["iqr"]

    @property
    def min_s(self) -> float:
        return self.summary["min"]

    @property
    def iqr_share(self) -> float | None:
        m, i = self.summary["median"], self.summary["iqr"]
        return i / m if m and not math.isnan(m) and not math.isnan(i) else None

    def to_dict(self) -> dict:
        s = {k: _finite(v) for k, v in self.summary.items()}
        return {
            "fn": self.fn, "window": self.window, "definition": self.definition,
            "device": self.device, "device_name": self.device_name, "inputs": self.inputs,
            "n": self.n, "rounds": self.rounds, "round_totals_s": self.round_totals_s,
            "per_call_s": {"median": s["median"], "q1": s["q1"], "q3": s["q3"],
                           "iqr": s["iqr"], "mad": s["mad"], "min": s["min"],
                           "max": s["max"], "values": self.per_call_s},
            "iqr_share": self.iqr_share, "margins_s": self.margins_s, "warmup": self.warmup,
            "flush_l2_bytes": self.flush_l2_bytes, "notes": self.notes,
            "warnings": self.warnings,
        }

    def __repr__(self) -> str:
        share = self.iqr_share
        spread = f" ({fmt_share(share)} of median)" if share is not None else ""
        lines = [
            f"fastenough.time({self.fn}) on {self.device} ({self.device_name}), "
            f"window {self.window}",
            f"  per call: median {_ns(self.median_s)}, IQR {_ns(self.iqr_s)}{spread}, "
            f"min {_ns(self.min_s)}  [{self.rounds} rounds x {self.n} calls]",
            f"  window: {self.definition}",
            f"  inputs: {', '.join(self.inputs) if self.inputs else '(no tensors)'}",
            "  warmup: " + _warmup_line(self.warmup),
        ]
        if self.margins_s:
            lines.append(f"  dummy margin left: min {_ns(min(self.margins_s))} over the rounds")
        if self.flush_l2_bytes:
            lines.append(f"  cache flushed before each round: {fmt_bytes(self.flush_l2_bytes)}")
        lines += [f"  note: {n}" for n in self.notes]
        lines += [f"  WARNING: {w}" for w in self.warnings]
        return "\n".join(lines)


def _warmup_line(w: dict) -> str:
    text = f"{w.get('calls', 0)} calls in {w.get('rounds', 0)} rounds"
    if w.get("mode") == "auto":
        tol = w.get("tolerance") or 0
        text += f", {w.get('stopped')} (two consecutive rounds within {tol:.0%})"
    return text


@dataclass
class WindowsResult:
    """window="all": each window's result, or why the device has no such window."""

    results: dict[str, TimingResult]
    unavailable: dict[str, str]  # window -> reason

    def ratio(self, over: str) -> float | None:
        a, b = self.results.get("plain"), self.results.get(over)
        if a is None or b is None or not b.median_s:
            return None
        return a.median_s / b.median_s

    @property
    def plain_over_dummy(self) -> float | None:
        """How much longer the plain window is than the dummy one: the share of the
        plain time that is launch overhead and queue gaps is 1 - 1/ratio."""
        return self.ratio("dummy")

    @property
    def plain_over_graph(self) -> float | None:
        return self.ratio("graph")

    def __getitem__(self, window: str) -> TimingResult:
        return self.results[window]

    def to_dict(self) -> dict:
        return {
            "windows": {k: v.to_dict() for k, v in self.results.items()},
            "unavailable": self.unavailable,
            "plain_over_dummy": self.plain_over_dummy,
            "plain_over_graph": self.plain_over_graph,
        }

    def __repr__(self) -> str:
        first = next(iter(self.results.values()))
        lines = [f"fastenough.time({first.fn}) on {first.device} ({first.device_name}), "
                 f"{first.n} calls a round"]
        for w in ("plain", "dummy", "graph"):
            r = self.results.get(w)
            if r is None:
                lines.append(f"  {w:<6} not available: {self.unavailable.get(w, '')}")
                continue
            share = r.iqr_share
            lines.append(f"  {w:<6} median {_ns(r.median_s)}  IQR "
                         f"{fmt_share(share)}  min {_ns(r.min_s)}  "
                         f"[{r.rounds} rounds]")
        ratio = self.plain_over_dummy
        if ratio is not None:
            lines.append(f"  plain/dummy = {ratio:.2f}: {max(0.0, 1 - 1 / ratio):.0%} of the "
                         "plain window is launch overhead and queue gaps")
        if self.plain_over_graph is not None:
            lines.append(f"  plain/graph = {self.plain_over_graph:.2f}")
        for r in self.results.values():
            lines += [f"  {r.window}: WARNING: {w}" for w in r.warnings]
        lines.append("  warmup: " + _warmup_line(first.warmup))
        if first.flush_l2_bytes:
            lines.append(f"  cache flushed before each round: {fmt_bytes(first.flush_l2_bytes)}")
        if "dummy" in self.results:
            lines += [f"  note: {n}" for n in self.results["dummy"].notes]
        return "\n".join(lines)
