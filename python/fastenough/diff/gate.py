"""`fastenough diff A B --max-regression PCT`: the regression gate (docs/diff.md).

Is B's steady time per item (per step when a side does not count its items)
slower than A's by more than PCT, beyond what the two runs' own step-time
spread explains? The statistic and the verdict are C++ (diff/regression_gate.h,
stats/median_ratio.h); here each side's steady steps are gathered (steps.jsonl
of a run directory, or the summary of a report.json alone) and the two runs are
checked to measure the same work: a faster or slower step of another batch
size, device or world size is another experiment, and the gate says "not
comparable" (exit 2) instead of a verdict.
"""

from __future__ import annotations

from pathlib import Path

from fastenough.ab.protocol import protocol_changes, protocol_of
from fastenough.diff.inputs import Side
from fastenough.diff.steps import read_steps, steady_steps
from fastenough.report.model import Report

BATCH = "batch size (items per steady step)"
# Protocol fields that make two runs not comparable, and why. The others
# (torch version, compute dtype, tokens per item) are often what the change
# under test is about: they are listed, not blocking.
BLOCKING = {
    BATCH: "another batch size is other work per step and another operating point per item",
    "device": "the runs used different devices",
    "world size": "the runs had a different number of processes",
    "mode": "one run's headline steps train and the other's evaluate",
}
DECLARED_WHY = "the program declared it with fastenough.protocol()"


def _num(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _headline_mode(report: Report) -> str | None:
    return report.steps.mode


def _report_rank(report: Report) -> dict:
    """The report's steady summary of the lowest rank in the headline mode
    (run_details.steps_per_rank), or its run-wide `steps` figures."""
    mode = _headline_mode(report)
    per_rank = report.run_details.steps_per_rank if report.run_details is not None else ()
    rows = [r for r in per_rank if r.steady_count > 0 and (mode is None or r.mode == mode)]
    if rows:
        r = min(rows, key=lambda r: r.rank)
        sps, ips = _num(r.steps_per_s), _num(r.items_per_s)
        return {"rank": r.rank, "count": r.steady_count,
                "median_ns": r.median_ns, "p10_ns": r.p10_ns, "p90_ns": r.p90_ns,
                "items_per_step": ips / sps if ips and sps else None}
    s = report.steps
    sps, ips = _num(s.steady_steps_per_s), _num(s.items_per_s)
    return {"rank": None, "count": s.steady_count,
            "median_ns": s.steady_median_ns, "p10_ns": s.steady_p10_ns,
            "p90_ns": s.steady_p90_ns,
            "items_per_step": ips / sps if ips and sps else None}


class _GateSide:
    """One side's steady steps (steps.jsonl) or, without them, its report's summary."""

    def __init__(self, side: Side):
        self.report = side.report  # never None: cli/diff.py gates two reports only
        self.run_dir = Path(side.run_dir) if side.run_dir else None
        rows = read_steps(self.run_dir) if self.run_dir else []
        self.steps = steady_steps(rows, _headline_mode(self.report)) if rows else None
        self.summary = None if self.steps else _report_rank(self.report)

    @property
    def source(self) -> str:
        return "steps.jsonl" if self.steps else "report"

    @property
    def counts_items(self) -> bool:
        if self.steps:
            return self.steps.items is not None
        return bool(self.summary["items_per_step"])

    def core_input(self, per_item: bool) -> dict:
        if self.steps:
            return {"durations_ns": self.steps.durations_ns,
                    "items": self.steps.items if per_item else None}
        s = self.summary
        return {"median_ns": _num(s["median_ns"]), "p10_ns": _num(s["p10_ns"]),
                "p90_ns": _num(s["p90_ns"]), "count": int(s["count"] or 0),
                "items_per_step": s["items_per_step"] if per_item else None}

    def mean_items_per_step(self) -> float | None:
        """Items per steady step from the report (its items/s over its steps/s)."""
        return _report_rank(self.report)["items_per_step"]

    def rank(self):
        return self.steps.rank if self.steps else self.summary["rank"]


def _round_batch(v: float | None):
    if v is None:
        return None
    return int(round(v)) if abs(v - round(v)) < 1e-6 else round(v, 3)


def _protocol(a: _GateSide, b: _GateSide) -> list[dict]:
    pa = protocol_of(a.report, a.run_dir, {})
    pb = protocol_of(b.report, b.run_dir, {})
    if not (a.steps and b.steps):
        # One side is a report alone: both batch sizes from the reports, so
        # that a median of steps does not meet a mean of steps.
        pa[BATCH], pb[BATCH] = (_round_batch(s.mean_items_per_step()) for s in (a, b))
    pa["mode"], pb["mode"] = _headline_mode(a.report), _headline_mode(b.report)
    out = []
    for field, va, vb in protocol_changes(pa, pb):
        blocking = field in BLOCKING or field.startswith("declared ")
        out.append({"field": field, "a": va, "b": vb, "blocking": blocking,
                    "why": BLOCKING.get(field, DECLARED_WHY) if blocking else None})
    return out


def _pct(share) -> float | None:
    return None if share is None else share * 100.0


def _verdict(g: dict, unit: str, max_pct: float) -> str:
    if g["status"] == "not-comparable":
        return "not comparable: " + "; ".join(g["reasons"])
    interval = (f"{g['confidence'] * 100:g}% interval {g['low']:.3f}x to {g['high']:.3f}x")
    head = f"B's steady time per {unit} is {g['ratio']:.3f}x A's ({interval})"
    if g["status"] == "regression":
        return (f"regression: {head}: at least {g['slowdown_low_pct']:.1f}% slower, more than "
                f"the {max_pct:g}% allowed")
    return f"ok: {head}: no slowdown beyond the {max_pct:g}% allowed"


def gate(a: Side, b: Side, max_regression_pct: float, confidence: float) -> dict:
    """The "gate" block of fastenough.diff/1."""
    from fastenough import _core

    ga, gb = _GateSide(a), _GateSide(b)
    per_item = ga.counts_items and gb.counts_items
    unit = "item" if per_item else "step"
    core = _core.regression_gate(ga.core_input(per_item), gb.core_input(per_item),
                                 max_regression_pct / 100.0, confidence)
    changes = _protocol(ga, gb)
    reasons = [f"{c['field']}: A {c['a']}, B {c['b']} ({c['why']})"
               for c in changes if c["blocking"]]
    if core["reason"]:
        reasons.append(core["reason"])
    status = "not-comparable" if reasons else core["status"]

    def side(g: _GateSide, est: dict) -> dict:
        return {"source": g.source, "rank": g.rank(), "mode": _headline_mode(g.report),
                "steady_steps": est["count"], "median_ns": est["median_ns"],
                "log_se": est["log_se"]}

    out = {
        "status": status,
        "max_regression_pct": max_regression_pct,
        "confidence": confidence,
        "unit": unit,
        "a": side(ga, core["a"]),
        "b": side(gb, core["b"]),
        "ratio": core["ratio"], "low": core["low"], "high": core["high"],
        "slowdown_pct": _pct(core["slowdown"]),
        "slowdown_low_pct": _pct(core["slowdown_low"]),
        "slowdown_high_pct": _pct(core["slowdown_high"]),
        "min_steady_steps": core["min_steps"],
        "protocol_changes": changes,
        "reasons": reasons,
    }
    out["verdict"] = _verdict(out, unit, max_regression_pct)
    return out
