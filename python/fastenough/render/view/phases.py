"""The Phases table: one row per phase (startup, warmup, steady, profile, the
user's own), or for many ranks the distribution over ranks of each phase."""

from __future__ import annotations

from dataclasses import dataclass

from fastenough.render.ranks import RANK_DISTRIBUTION_OVER, WORST_NAMED, max_of, median
from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_share
from fastenough.report.model import Phase, Report, RunDetailsPhase

# More phases than this: one row per phase name and mode, its instances summed.
PHASE_ROWS_MAX = 16


@dataclass(frozen=True)
class _MergedDetails:
    """run_details.phases[] of phase instances merged per (rank, name, mode)."""
    mode: str | None
    busy_source: str | None
    complete: bool
    instances: int
    cpu_mean_pct: float | None
    rss_max: int | None


Details = RunDetailsPhase | _MergedDetails | None


def detail(d: Details, name: str, default=None):
    """A field of a phase's run_details row; `default` where the report has none (a
    trace, or details that do not line up with the phases)."""
    return default if d is None else getattr(d, name)


def aligned_details(report: Report) -> list[Details]:
    """run_details.phases[] by position beside report.phases[], as the C++ writes
    them; None each where there are none or they do not line up."""
    phases = report.phases
    details = report.run_details.phases if report.run_details else ()
    if len(details) != len(phases):
        return [None] * len(phases)
    return list(details)


def phases_table(report: Report) -> Table | None:
    phases = list(report.phases)
    if not phases:
        return None
    details = aligned_details(report)
    ranks = {p.rank for p in phases}
    if len(ranks) > RANK_DISTRIBUTION_OVER:
        return _phases_summary_table(phases, details)
    multi_rank = len(ranks) > 1
    # The sampler sees the process tree: with several ranks its RSS is the job's.
    header = (["rank"] if multi_rank else []) + [
        "phase", "host time", "device busy", "util", "power", "mem used", "alloc peak",
        "reserved peak", "host CPU", "RSS max (all ranks)" if multi_rank else "RSS max",
    ]
    modes = {detail(d, "mode") for d in details if detail(d, "mode")}
    if len(phases) > PHASE_ROWS_MAX:
        # A loop that alternates training and evaluation enters a phase every
        # step: one row per phase and mode, its instances summed, so that the
        # table never grows with the number of steps.
        phases, details = _phases_by_kind(phases, details)
    rows = []
    for p, d in zip(phases, details, strict=True):
        power = p.power_mean_w
        util = p.util_mean
        busy = fmt_share(p.device_busy_share)
        if busy != "-" and detail(d, "busy_source") == "util":
            busy += " (util)"
        cpu = detail(d, "cpu_mean_pct")
        name = p.name
        mode = detail(d, "mode")
        if len(modes) > 1 and mode and name in ("warmup", "steady", "profile"):
            name += f" ({mode})"
        name += "" if detail(d, "complete", True) else " (cut)"
        instances = detail(d, "instances")
        if (1 if instances is None else instances) > 1:
            name += f" ×{instances}"
        row = [
            name,
            fmt_ns(p.host_ns),
            busy,
            "-" if util is None else f"{util:.0f}%",
            "-" if power is None else f"{power:.0f} W",
            fmt_bytes(p.mem_used_max),
            fmt_bytes(p.alloc_peak),
            fmt_bytes(p.reserved_peak),
            "-" if cpu is None else f"{cpu:.0f}%",
            fmt_bytes(detail(d, "rss_max")),
        ]
        rows.append(([str(p.rank)] if multi_rank else []) + row)
    off = 1 if multi_rank else 0
    return _drop_empty_columns(Table(
        "Phases", header, rows, right={i + off for i in range(1, 10)},
        note="device busy comes from the profiler trace for the profile phase and from sampled "
        "utilisation, marked (util), otherwise; host CPU is the process tree's mean CPU use "
        "(100% = one core).",
    ))


def _phases_by_kind(phases: list[Phase], details: list[Details]
                    ) -> tuple[list[Phase], list[Details]]:
    """Phase instances merged per (rank, name, mode), in order of first
    appearance: host times summed, peaks the maximum, the rest the median."""
    order: dict[tuple, list[tuple[Phase, Details]]] = {}
    for p, d in zip(phases, details, strict=True):
        order.setdefault((p.rank, p.name, detail(d, "mode")), []).append((p, d))
    out_p: list[Phase] = []
    out_d: list[Details] = []
    for members in order.values():
        ps = [m[0] for m in members]
        ds = [m[1] for m in members]
        host = [p.host_ns for p in ps if p.host_ns is not None]
        out_p.append(ps[0].replace(
            host_ns=sum(host) if host else None,
            device_busy_share=median([p.device_busy_share for p in ps]),
            util_mean=median([p.util_mean for p in ps]),
            power_mean_w=median([p.power_mean_w for p in ps]),
            mem_used_max=max_of([p.mem_used_max for p in ps]),
            alloc_peak=max_of([p.alloc_peak for p in ps]),
            reserved_peak=max_of([p.reserved_peak for p in ps])))
        out_d.append(_MergedDetails(
            mode=detail(ds[0], "mode"), busy_source=detail(ds[0], "busy_source"),
            instances=len(members), complete=all(detail(d, "complete", True) for d in ds),
            cpu_mean_pct=median([detail(d, "cpu_mean_pct") for d in ds]),
            rss_max=max_of([detail(d, "rss_max") for d in ds])))
    return out_p, out_d


def phase_groups(phases: list[Phase] | tuple[Phase, ...], details: list[Details]
                 ) -> list[tuple[str, list[tuple[Phase, Details]]]]:
    """Phases of all ranks grouped by (name, occurrence within the rank), in the
    order of the first rank: the n-th `steady` of every rank is one group."""
    seen: dict[tuple, int] = {}
    groups: dict[tuple[str, int], list[tuple[Phase, Details]]] = {}
    for p, d in zip(phases, details, strict=True):
        k = (p.rank, p.name)
        n = seen.get(k, 0)
        seen[k] = n + 1
        groups.setdefault((p.name, n), []).append((p, d))
    return [(name, members) for (name, _), members in groups.items()]


def _phases_summary_table(phases: list[Phase], details: list[Details]) -> Table:
    rows = []
    ranks = len({p.rank for p in phases})
    for name, members in phase_groups(phases, details):
        slowest = sorted(members, key=lambda m: m[0].host_ns or 0, reverse=True)
        host = [m[0].host_ns for m in members if m[0].host_ns is not None]
        busy = [m[0].device_busy_share for m in members]
        util = median([m[0].util_mean for m in members])
        power = median([m[0].power_mean_w for m in members])
        cpu = median([detail(m[1], "cpu_mean_pct") for m in members])
        rows.append([
            name,
            str(len(members)),
            fmt_ns(min(host)) if host else "-",
            fmt_ns(median(host)),
            fmt_ns(max(host)) if host else "-",
            ", ".join(f"{m[0].rank} ({fmt_ns(m[0].host_ns)})" for m in slowest[:WORST_NAMED]),
            fmt_share(median(busy)),
            "-" if util is None else f"{util:.0f}%",
            "-" if power is None else f"{power:.0f} W",
            fmt_bytes(max_of([m[0].mem_used_max for m in members])),
            fmt_bytes(max_of([m[0].alloc_peak for m in members])),
            fmt_bytes(max_of([m[0].reserved_peak for m in members])),
            "-" if cpu is None else f"{cpu:.0f}%",
            fmt_bytes(max_of([detail(m[1], "rss_max") for m in members])),
        ])
    header = ["phase", "ranks", "host time min", "median", "max",
              f"slowest {WORST_NAMED} ranks", "device busy (median)", "util", "power",
              "mem used (max)", "alloc peak (max)", "reserved peak (max)", "host CPU",
              "RSS max (all ranks)"]
    return _drop_empty_columns(Table(
        f"Phases ({ranks} ranks: host time over ranks, the slowest named; medians; peaks "
        "the maximum)",
        header, rows, right=set(range(1, 14)) - {5},
        note="device busy comes from the profiler trace for the profile phase and from "
        "sampled utilisation otherwise; every rank's row is in --json.",
    ))


def _drop_empty_columns(t: Table) -> Table:
    """Columns absent for every row (no GPU: no util, power, ...) only add noise."""
    keep = [i for i in range(len(t.header)) if i == 0 or any(r[i] != "-" for r in t.rows)]
    header = [t.header[i] for i in keep]
    return Table(
        t.title,
        header,
        [[r[i] for i in keep] for r in t.rows],
        note=t.note if any(h.startswith("device busy") for h in header) else "",
        right={new for new, old in enumerate(keep) if old in t.right},
    )
