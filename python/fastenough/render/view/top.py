"""The top kernels and CPU ops, and the share of each that the HTML page
draws as a bar beside it."""

from __future__ import annotations

from fastenough.render.table import Table
from fastenough.render.units import fmt_ns, fmt_num, fmt_share, shorten

TOP_N = 10


def top_kernels_table(report: dict) -> Table | None:
    kernels = (report.get("top_kernels") or [])[:TOP_N]
    if not kernels:
        return None
    rows = [
        [
            shorten(k.get("name", "?"), 70),
            fmt_num(k.get("count")),
            fmt_ns(k.get("total_ns")),
            fmt_ns(k.get("mean_ns")),
            fmt_share(k.get("share_of_busy")),
        ]
        for k in kernels
    ]
    return Table("Top kernels", ["kernel", "calls", "total", "mean", "of busy"], rows,
                 right={1, 2, 3, 4})


def kernel_shares(report: dict) -> list[float | None]:
    """Each shown kernel's share of busy time (the 'of busy' column)."""
    return [k.get("share_of_busy") for k in (report.get("top_kernels") or [])[:TOP_N]]


def top_ops_table(report: dict) -> Table | None:
    ops = (report.get("top_ops") or [])[:TOP_N]
    if not ops:
        return None
    rows = [
        [
            shorten(o.get("name", "?"), 60),
            fmt_num(o.get("count")),
            fmt_ns(o.get("total_ns")),
            fmt_ns(o.get("self_ns")),
        ]
        for o in ops
    ]
    return Table("Top CPU ops", ["op", "calls", "total", "self"], rows, right={1, 2, 3})


def op_shares(report: dict) -> list[float]:
    """Each shown op's total time as a share of the largest (the 'total' column)."""
    ops = (report.get("top_ops") or [])[:TOP_N]
    top = max((o.get("total_ns") or 0 for o in ops), default=0) or 1
    return [(o.get("total_ns") or 0) / top for o in ops]
