"""The top kernels and CPU ops, and the share of each that the HTML page
draws as a bar beside it."""

from __future__ import annotations

from fastenough.render.table import Table
from fastenough.render.units import fmt_ns, fmt_num, fmt_share, shorten
from fastenough.report.model import Report

TOP_N = 10


def top_kernels_table(report: Report) -> Table | None:
    kernels = report.top_kernels[:TOP_N]
    if not kernels:
        return None
    rows = [
        [
            shorten(k.name, 70),
            fmt_num(k.count),
            fmt_ns(k.total_ns),
            fmt_ns(k.mean_ns),
            fmt_share(k.share_of_busy),
        ]
        for k in kernels
    ]
    return Table("Top kernels", ["kernel", "calls", "total", "mean", "of busy"], rows,
                 right={1, 2, 3, 4})


def kernel_shares(report: Report) -> list[float | None]:
    """Each shown kernel's share of busy time (the 'of busy' column)."""
    return [k.share_of_busy for k in report.top_kernels[:TOP_N]]


def top_ops_table(report: Report) -> Table | None:
    ops = report.top_ops[:TOP_N]
    if not ops:
        return None
    rows = [
        [
            shorten(o.name, 60),
            fmt_num(o.count),
            fmt_ns(o.total_ns),
            fmt_ns(o.self_ns),
        ]
        for o in ops
    ]
    return Table("Top CPU ops", ["op", "calls", "total", "self"], rows, right={1, 2, 3})


def op_shares(report: Report) -> list[float]:
    """Each shown op's total time as a share of the largest (the 'total' column)."""
    ops = report.top_ops[:TOP_N]
    top = max((o.total_ns or 0 for o in ops), default=0) or 1
    return [(o.total_ns or 0) / top for o in ops]
