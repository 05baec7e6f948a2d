"""The Phases table: one row per phase (startup, warmup, steady, profile, the
user's own), or for many ranks the distribution over ranks of each phase."""

from __future__ import annotations

from fastenough.render.ranks import RANK_DISTRIBUTION_OVER, WORST_NAMED, max_of, median
from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_share

# More phases than this: one row per phase name and mode, its instances summed.
PHASE_ROWS_MAX = 16


def phases_table(report: dict) -> Table | None:
    phases = report.get("phases") or []
    if not phases:
        return None
    details = (report.get("run_details") or {}).get("phases") or []
    if len(details) != len(phases):
        details = [{} for _ in phases]
    ranks = {p.get("rank") for p in phases}
    if len(ranks) > RANK_DISTRIBUTION_OVER:
        return _phases_summary_table(phases, details)
    multi_rank = len(ranks) > 1
    # The sampler sees the process tree: with several ranks its RSS is the job's.
    header = (["rank"] if multi_rank else []) + [
        "phase", "host time", "device busy", "util", "power", "mem used", "alloc peak",
        "reserved peak", "host CPU", "RSS max (all ranks)" if multi_rank else "RSS max",
    ]
    modes = {d.get("mode") for d in details if d.get("mode")}
    if len(phases) > PHASE_ROWS_MAX:
        # A loop that alternates training and evaluation enters a phase every
        # step: one row per phase and mode, its instances summed, so that the
        # table never grows with the number of steps.
        phases, details = _phases_by_kind(phases, details)
    rows = []
    for p, d in zip(phases, details, strict=True):
        power = p.get("power_mean_w")
        util = p.get("util_mean")
        busy = fmt_share(p.get("device_busy_share"))
        if busy != "-" and d.get("busy_source") == "util":
            busy += " (util)"
        cpu = d.get("cpu_mean_pct")
        name = p.get("name", "-")
        if len(modes) > 1 and d.get("mode") and name in ("warmup", "steady", "profile"):
            name += f" ({d['mode']})"
        name += "" if d.get("complete", True) else " (cut)"
        if d.get("instances", 1) > 1:
            name += f" ×{d['instances']}"
        row = [
            name,
            fmt_ns(p.get("host_ns")),
            busy,
            "-" if util is None else f"{util:.0f}%",
            "-" if power is None else f"{power:.0f} W",
            fmt_bytes(p.get("mem_used_max")),
            fmt_bytes(p.get("alloc_peak")),
            fmt_bytes(p.get("reserved_peak")),
            "-" if cpu is None else f"{cpu:.0f}%",
            fmt_bytes(d.get("rss_max")),
        ]
        rows.append(([str(p.get("rank"))] if multi_rank else []) + row)
    off = 1 if multi_rank else 0
    return _drop_empty_columns(Table(
        "Phases", header, rows, right={i + off for i in range(1, 10)},
        note="device busy comes from the profiler trace for the profile phase and from sampled "
        "utilisation, marked (util), otherwise; host CPU is the process tree's mean CPU use "
        "(100% = one core).",
    ))


def _phases_by_kind(phases: list[dict], details: list[dict]) -> tuple[list[dict], list[dict]]:
    """Phase instances merged per (rank, name, mode), in order of first
    appearance: host times summed, peaks the maximum, the rest the median."""
    order: dict[tuple, list[tuple[dict, dict]]] = {}
    for p, d in zip(phases, details, strict=True):
        order.setdefault((p.get("rank"), p.get("name"), d.get("mode")), []).append((p, d))
    out_p, out_d = [], []
    for members in order.values():
        ps = [m[0] for m in members]
        ds = [m[1] for m in members]
        host = [p.get("host_ns") for p in ps if p.get("host_ns") is not None]
        merged = dict(ps[0], host_ns=sum(host) if host else None,
                      device_busy_share=median([p.get("device_busy_share") for p in ps]),
                      util_mean=median([p.get("util_mean") for p in ps]),
                      power_mean_w=median([p.get("power_mean_w") for p in ps]))
        for key in ("mem_used_max", "alloc_peak", "reserved_peak"):
            merged[key] = max_of([p.get(key) for p in ps])
        out_p.append(merged)
        out_d.append(dict(ds[0], instances=len(members),
                          complete=all(d.get("complete", True) for d in ds),
                          cpu_mean_pct=median([d.get("cpu_mean_pct") for d in ds]),
                          rss_max=max_of([d.get("rss_max") for d in ds])))
    return out_p, out_d


def phase_groups(phases: list[dict], details: list[dict]) -> list[tuple[str, list]]:
    """Phases of all ranks grouped by (name, occurrence within the rank), in the
    order of the first rank: the n-th `steady` of every rank is one group."""
    seen: dict[tuple, int] = {}
    groups: dict[tuple[str, int], list[tuple[dict, dict]]] = {}
    for p, d in zip(phases, details, strict=True):
        k = (p.get("rank"), p.get("name"))
        n = seen.get(k, 0)
        seen[k] = n + 1
        groups.setdefault((p.get("name", "-"), n), []).append((p, d))
    return [(name, members) for (name, _), members in groups.items()]


def _phases_summary_table(phases: list[dict], details: list[dict]) -> Table:
    rows = []
    ranks = len({p.get("rank") for p in phases})
    for name, members in phase_groups(phases, details):
        slowest = sorted(members, key=lambda m: m[0].get("host_ns") or 0, reverse=True)
        host = [m[0].get("host_ns") for m in members if m[0].get("host_ns") is not None]
        busy = [m[0].get("device_busy_share") for m in members]
        util = median([m[0].get("util_mean") for m in members])
        power = median([m[0].get("power_mean_w") for m in members])
        cpu = median([m[1].get("cpu_mean_pct") for m in members])
        rows.append([
            name,
            str(len(members)),
            fmt_ns(min(host)) if host else "-",
            fmt_ns(median(host)),
            fmt_ns(max(host)) if host else "-",
            ", ".join(f"{m[0].get('rank')} ({fmt_ns(m[0].get('host_ns'))})"
                      for m in slowest[:WORST_NAMED]),
            fmt_share(median(busy)),
            "-" if util is None else f"{util:.0f}%",
            "-" if power is None else f"{power:.0f} W",
            fmt_bytes(max_of([m[0].get("mem_used_max") for m in members])),
            fmt_bytes(max_of([m[0].get("alloc_peak") for m in members])),
            fmt_bytes(max_of([m[0].get("reserved_peak") for m in members])),
            "-" if cpu is None else f"{cpu:.0f}%",
            fmt_bytes(max_of([m[1].get("rss_max") for m in members])),
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
