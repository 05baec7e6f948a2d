"""How close the hot ops ran to the device's roofs (the report's
roofline.per_rank[], docs/roofline.md): one row per (op, shapes), heaviest
device time first, over every rank; no table when no rank has rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fastenough.render.table import Table
from fastenough.render.units import fmt_ns, fmt_num, fmt_share, shorten
from fastenough.report.model import Report

TOP_N = 10
TITLE = "How close to the roof"
WORST_TITLE = "Worst rank per op"
# The HTML chart's points: the heaviest rows over every rank.
CHART_POINTS = 60


def _of_roof(op) -> str:
    """The percentage of the roof it sits under (the bound side)."""
    pct = op.pct_of_compute_peak if op.bound == "compute" else op.pct_of_memory_peak
    if op.bound is None or pct is None:
        return "-"
    return fmt_share(pct / 100)


def _roof(op) -> str:
    """The roof it sits under: "memory", or "compute" with the peak's column."""
    if op.bound == "compute" and op.peak.dtype:
        return f"compute ({op.peak.dtype})"
    return op.bound or "-"


def roofline_table(report: Report) -> Table | None:
    per_rank = report.roofline.per_rank if report.roofline else ()
    rows = [(r.rank, op) for r in per_rank for op in r.ops]
    if not rows:
        return None
    many = len(per_rank) > 1
    rows.sort(key=lambda ro: -ro[1].device_ns)  # stable: rank order, then each rank's order
    body = []
    for rank, op in rows[:TOP_N]:
        row = [str(rank)] if many else []
        row += [
            shorten(op.op, 28),
            shorten(op.input_dims.replace(" ", ""), 28),
            fmt_num(op.calls),
            fmt_ns(op.device_ns),
            fmt_ns(op.time_at_roof_ns),
            _of_roof(op),
            _roof(op),
        ]
        body.append(row)
    header = (["rank"] if many else []) + [
        "op", "shapes", "calls", "device", "at the roof", "of roof", "roof"]
    first = 1 if many else 0
    notes = []
    devices = sorted({op.peak.device for _, op in rows[:TOP_N] if op.peak.device})
    if devices:
        notes.append("peaks of " + ", ".join(devices) + " (docs/roofline.md)")
    unmodelled = [r.unmodelled for r in per_rank if r.unmodelled.count]
    if unmodelled:
        names = sorted({n for u in unmodelled for n in u.ops})
        notes.append(f"{sum(u.count for u in unmodelled)} hot op shapes without a model "
                     f"({fmt_ns(sum(u.device_ns for u in unmodelled))} of device time, "
                     f"not counted): {', '.join(shorten(n, 40) for n in names[:6])}"
                     + (", ..." if len(names) > 6 else ""))
    if any(op.bound is None for _, op in rows[:TOP_N]):
        notes.append("'-': no peaks for the device (the trace has no deviceProperties, or "
                     "the device is not in the table: name it with --device NAME, or give "
                     "its peaks with --peaks FILE.json; docs/roofline.md)")
    return Table(TITLE, header, body, note="; ".join(notes),
                 right={first + 2, first + 3, first + 4, first + 5})


@dataclass(frozen=True)
class RoofPoint:
    """One (op, shapes) of a rank for the HTML roofline chart: x its arithmetic
    intensity, y its achieved FLOP/s, its area its device time. Names are data."""

    op: str
    shapes: str
    rank: int
    intensity: float  # FLOPs per byte
    flop_per_s: float
    device_ns: int
    of_roof: str  # "8.6%", or "-" without peaks
    roof: str  # "memory", "compute (bf16)", "-"
    peak: str  # "NVIDIA A100 SXM4 80GB, bf16" ("" without a device)
    peak_flop_per_s: float | None
    peak_bytes_per_s: float | None


def _positive(x) -> bool:
    return x is not None and math.isfinite(x) and x > 0


def roofline_points(report: Report) -> tuple[RoofPoint, ...]:
    """The rows the chart can place (work and bytes both known, some device time),
    heaviest first, at most CHART_POINTS over every rank."""
    per_rank = report.roofline.per_rank if report.roofline else ()
    rows = [(r.rank, op) for r in per_rank for op in r.ops
            if _positive(op.arithmetic_intensity) and _positive(op.achieved_flop_per_s)]
    rows.sort(key=lambda ro: -ro[1].device_ns)
    out = []
    for rank, op in rows[:CHART_POINTS]:
        pk = op.peak
        peak = ", ".join(x for x in (pk.device, pk.dtype) if x) if pk.device else ""
        out.append(RoofPoint(
            op=op.op, shapes=op.input_dims.replace(" ", ""), rank=rank,
            intensity=op.arithmetic_intensity, flop_per_s=op.achieved_flop_per_s,
            device_ns=op.device_ns, of_roof=_of_roof(op), roof=_roof(op), peak=peak,
            peak_flop_per_s=pk.flop_per_s if _positive(pk.flop_per_s) else None,
            peak_bytes_per_s=pk.bytes_per_s if _positive(pk.bytes_per_s) else None))
    return tuple(out)


def roofline_worst_table(report: Report) -> Table | None:
    """Each op that two or more ranks ran: the rank furthest below its binding roof,
    and the closest (the report's roofline.worst_rank_per_op, heaviest first)."""
    worst = report.roofline.worst_rank_per_op if report.roofline else ()
    if not worst:
        return None
    body = []
    for w in worst[:TOP_N]:
        body.append([
            shorten(w.op, 28),
            shorten(w.input_dims.replace(" ", ""), 28),
            fmt_num(w.ranks),
            fmt_ns(w.device_ns),
            str(w.worst_rank),
            fmt_share(w.worst_pct_of_roof / 100),
            str(w.best_rank),
            fmt_share(w.best_pct_of_roof / 100),
            w.worst_bound,
        ])
    more = f"; {len(worst) - TOP_N} more in report.json" if len(worst) > TOP_N else ""
    return Table(WORST_TITLE, ["op", "shapes", "ranks", "device", "worst rank", "of roof",
                               "best rank", "of roof", "roof"], body,
                 note="of roof: the % of the roof the worst (best) rank's row sits under; "
                 "a wide gap is one rank's kernels running slower at the same shapes" + more,
                 right={2, 3, 4, 5, 6, 7})
