"""How jobs with many ranks are summarised rather than listed: above
RANK_DISTRIBUTION_OVER ranks the per-rank tables (phases, device time, idle,
memory, graphs) show the distribution over ranks, min / median / max, and name
the WORST_NAMED worst ranks; the inputs are folded above RANK_DETAIL_MAX, and
the HTML charts show the worst ranks, the median and the best (device_rows)."""

from __future__ import annotations

from fastenough.render.units import share
from fastenough.report.model import Device

RANK_DETAIL_MAX = 8  # more ranks than this: inputs folded, charts show the worst
WORST_RANKS = 5
RANK_DISTRIBUTION_OVER = 4  # more ranks than this: tables show min / median / max
WORST_NAMED = 3  # ... and name this many worst ranks


def median(values: list) -> float | None:
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def max_of(values: list):
    """The largest value that is not None; None when there is none."""
    values = [v for v in values if v is not None]
    return max(values) if values else None


def idle_share(d: Device) -> float:
    return share(d.idle_ns, d.span_ns) or 0.0


def many_ranks(devices: tuple[Device, ...]) -> bool:
    """More ranks than RANK_DISTRIBUTION_OVER: the device tables show their distribution."""
    return len({d.rank for d in devices}) > RANK_DISTRIBUTION_OVER


def device_rows(devices: tuple[Device, ...]) -> list[tuple[str, Device]]:
    """(rank label, device) to show: every device of a small job; for more than
    RANK_DETAIL_MAX ranks the WORST_RANKS most idle, then the median and the least idle."""
    if len({d.rank for d in devices}) <= RANK_DETAIL_MAX:
        return [(str(d.rank), d) for d in devices]
    ordered = sorted(devices, key=idle_share, reverse=True)
    rows = [(str(d.rank), d) for d in ordered[:WORST_RANKS]]
    rows.append((f"median: {ordered[len(ordered) // 2].rank}",
                 ordered[len(ordered) // 2]))
    rows.append((f"least idle: {ordered[-1].rank}", ordered[-1]))
    return rows
