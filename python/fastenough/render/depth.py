"""The deeper trace analyses as rows and lines every renderer shows the same way:
the per-step breakdown in the TensorBoard plugin's categories (steady mean and
worst step), kernel efficiency, the critical path, memory and graph replays.

Each part is optional: where the trace lacks its data the part is one line
saying why (no ProfilerStep#N, no kernel launch figures, no [memory] events,
no device activity). Names from the trace (kernels, ops) stay plain text here;
each renderer escapes them for its own format. The definitions and their
sources are in docs/trace-depth.md.
"""

from __future__ import annotations

from fastenough.render.bounded import steady_rows
from fastenough.render.ranks import RANK_DISTRIBUTION_OVER, WORST_NAMED, median
from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_share, shorten
from fastenough.report.model import Report

CATEGORY_LABELS = {
    "kernel": "Kernel",
    "memcpy": "Memcpy",
    "memset": "Memset",
    "communication": "Communication",
    "runtime": "Runtime",
    "dataloader": "DataLoader",
    "cpu_exec": "CPU Exec",
    "other": "Other",
}


def _first(rows: tuple):
    return rows[0] if rows else None


def _many_ranks(rows: tuple) -> bool:
    return len({r.rank for r in rows}) > RANK_DISTRIBUTION_OVER


def _spread(rows: tuple, value_of, text) -> str | None:
    """'min a / median b / max c' of a figure over rows; None when no row has it."""
    values = [v for v in (value_of(r) for r in rows) if v is not None]
    if not values:
        return None
    return f"min {text(min(values))} / median {text(median(values))} / max {text(max(values))}"


def _ranks(n: int) -> str:
    return f"{n} rank" + ("s" if n != 1 else "")


def _place(row) -> str:
    return f"rank {row.rank} device {row.device}"


def _rank_note(rows: tuple, row) -> str:
    return f" (rank {row.rank} of {len(rows)} ranks)" if len(rows) > 1 else ""


def step_breakdown_table(report: Report) -> Table | None:
    """Steady mean and worst step per category, and the plugin's own step."""
    per_rank = report.step_breakdown.per_rank if report.step_breakdown else ()
    sb = _first(per_rank)
    if sb is None:
        return None
    # steady_begin counts every step; a long trace lists some (render/bounded.py).
    steady = steady_rows(sb, sb.steps)
    worst = max(steady, key=lambda s: s.dur_ns or 0) if steady else None
    mean = sb.steady_mean
    plugin = sb.plugin_steady_mean
    step_ns = mean.step_ns
    whole = sb.whole_trace
    worst_label = f"worst step (#{worst.number})" if worst and not whole else "-"
    header = ["category", "steady mean" if not whole else "time", "share", worst_label,
              "plugin's step (mean)"]
    rows = []
    # A CPU run (no device in the report): the device categories are rows of
    # zeros; they are left out and named in the note.
    cpu_only = not report.devices
    left_out = []
    for key, label in CATEGORY_LABELS.items():
        v = getattr(mean, f"{key}_ns")
        if cpu_only and not v and not (worst and getattr(worst, f"{key}_ns")) and \
                not getattr(plugin, f"{key}_ns"):
            left_out.append(label)
            continue
        rows.append([
            label,
            fmt_ns(v),
            fmt_share(v / step_ns) if v is not None and step_ns else "-",
            fmt_ns(getattr(worst, f"{key}_ns")) if worst and not whole else "-",
            fmt_ns(getattr(plugin, f"{key}_ns")),
        ])
    rows.append(["step", fmt_ns(step_ns), "100.0%" if step_ns else "-",
                 fmt_ns(worst.dur_ns) if worst and not whole else "-",
                 fmt_ns(plugin.step_ns)])
    if whole:
        header.pop(3)
        for r in rows:
            r.pop(3)
    count = sb.steady_count or 0
    title = ("Where the step went (TensorBoard plugin categories, "
             + (f"{count} steady step{'s' if count != 1 else ''}" if not whole
                else "no ProfilerStep#N: the whole trace")
             + ")" + _rank_note(per_rank, sb))
    note = ("steps are the ProfilerStep#N annotations; the plugin's step starts at the end of "
            "the previous one and stretches to the end of the device work it launched "
            f"({sb.plugin_steady_count} of its steps kept). Overlapping time goes to the "
            "first category in this order.")
    if left_out:
        note += f" No device in this run: {', '.join(left_out)} (all zero) left out."
    return Table(title, header, rows, note=note, right=set(range(1, len(header))))


def efficiency_lines(report: Report) -> list[str]:
    eff = report.efficiency
    devices = eff.devices if eff else ()
    if not devices:
        return []
    out = _efficiency_spread(devices) if _many_ranks(devices) else []
    for d in () if out else devices:
        s = d.steady
        parts = [f"GPU utilisation {fmt_share(s.gpu_utilization)}"]
        if s.sm_efficiency is not None:
            parts.append(f"est. SM efficiency {fmt_share(s.sm_efficiency)}")
        if s.achieved_occupancy_pct is not None:
            parts.append(f"est. achieved occupancy {s.achieved_occupancy_pct:.1f}%")
        if s.tensor_core_share is not None:
            parts.append(f"tensor cores {fmt_share(s.tensor_core_share)} of kernel time")
        label = f"rank {d.rank} device {d.device}"
        out.append(f"{label}: " + ", ".join(parts))
    if not eff.has_launch_args:
        out.append("no kernel launch figures in the trace (blocks/warps per SM, est. achieved "
                   "occupancy: CUPTI writes them; ROCm and NPU traces have none): SM efficiency "
                   "and occupancy are not estimated")
    return out


def _efficiency_spread(devices: tuple) -> list[str]:
    """Many ranks: each figure's distribution over the devices, the least used named."""
    ranks = len({d.rank for d in devices})
    parts = []
    for key, label, text in (
            ("gpu_utilization", "GPU utilisation", fmt_share),
            ("sm_efficiency", "est. SM efficiency", fmt_share),
            ("achieved_occupancy_pct", "est. achieved occupancy", lambda v: f"{v:.1f}%"),
            ("tensor_core_share", "tensor cores (of kernel time)", fmt_share)):
        spread = _spread(devices, lambda d, k=key: getattr(d.steady, k), text)
        if spread:
            parts.append(f"{label} {spread}")
    out = [f"{len(devices)} devices on {ranks} ranks: " + "; ".join(parts)]
    used = [d for d in devices if d.steady.gpu_utilization is not None]
    if used:
        least = sorted(used, key=lambda d: d.steady.gpu_utilization)[:WORST_NAMED]
        out.append("least GPU utilisation: " + ", ".join(
            f"{_place(d)} ({fmt_share(d.steady.gpu_utilization)})" for d in least))
    return out


def critical_path_lines(report: Report) -> list[str]:
    return _rank_path_lines(report) + job_path_lines(report)


def job_path_lines(report: Report) -> list[str]:
    """The job's path across ranks: whose work the job waited for between
    collectives, and how much of it was the collectives themselves."""
    job = report.critical_path.job if report.critical_path else None
    if job is None:
        return []
    if job.status != "ok":
        return ["across ranks: no collective was matched on every rank, so nothing links "
                "their paths"]
    length = job.length_ns or 0
    if not length:
        return []
    gates = sorted((r for r in job.per_rank if r.gating_ns), key=lambda r: -r.gating_ns)
    parts = [f"rank {r.rank}'s work {fmt_share(r.gating_ns / length)} "
             f"(last at {r.gating_collectives} of {job.collectives})"
             for r in gates[:WORST_NAMED]]
    if len(gates) > WORST_NAMED:
        rest = sum(r.gating_ns for r in gates[WORST_NAMED:])
        parts.append(f"{len(gates) - WORST_NAMED} more ranks {fmt_share(rest / length)}")
    parts.append(f"collectives {fmt_share((job.transfer_ns or 0) / length)}")
    out = [f"across {job.ranks} ranks, linked by {job.collectives} collectives "
           f"({fmt_ns(length)}): " + ", ".join(parts)]
    waits = sorted((r for r in job.per_rank if r.waited_ns), key=lambda r: -r.waited_ns)
    if waits:
        out.append("waited in collectives for the last rank: " + ", ".join(
            f"rank {r.rank} {fmt_ns(r.waited_ns)}" for r in waits[:WORST_NAMED]))
    return out


def _rank_path_lines(report: Report) -> list[str]:
    rows = report.critical_path.per_rank if report.critical_path else ()
    cp = _first(rows)
    if cp is None:
        return []
    if cp.status != "ok":
        why = {"no-events": "no cpu ops, runtime calls or device activity inside the steady steps",
               "cycle": "the trace's timestamps contradict its dependencies (a cycle)"}
        return [f"not found: {why.get(cp.status, cp.status)}"]
    steps = cp.steps_analysed or 1
    length = cp.length_ns or 0
    def visible(ns) -> bool:  # parts under 0.05% would print as 0.0%
        return bool(length) and (ns or 0) / length >= 0.0005

    parts = [f"host {fmt_share(cp.host_ns / length)}" if length else "host -"]
    for st in cp.streams:
        busy = sum(x or 0 for x in (st.compute_ns, st.comm_ns, st.memcpy_ns, st.memset_ns))
        if visible(busy):
            parts.append(f"stream {st.stream} {fmt_share(busy / length)}")
    for value, label in ((cp.launch_delay_ns, "launch delays"),
                         (cp.kernel_gap_ns, "kernel gaps")):
        if visible(value):
            parts.append(f"{label} {fmt_share(value / length)}")
    if cp.steady_steps > steps:
        scope = f"{steps} of {cp.steady_steps} steady steps"
    else:
        scope = f"{steps} steady step" + ("s" if steps != 1 else "")
    head = (f"{fmt_ns(length / steps)} per step{_rank_note(rows, cp)}, over {scope}: "
            + ", ".join(parts))
    if visible(cp.sync_ns):
        head += f"; {fmt_share(cp.sync_ns / length)} of it while the host waited in a sync"
    out = [head]
    top = cp.top
    if top and length:
        out.append("on the path: " + "; ".join(
            f"{shorten(t.name or '-', 60)} ({t.kind}) {fmt_share(t.ns / length)}"
            for t in top[:5]))
    if not cp.cuda_sync_events:
        out.append("no cuda_sync events in the trace: waits of sync calls are inferred from the "
                   "device op that finished last before the call returned")
    return out


def memory_lines(report: Report) -> list[str]:
    mem = report.memory or ()
    if not mem:
        return []
    if _many_ranks(mem):
        return _memory_spread(mem)
    out = []
    for m in mem:
        line = (f"{m.device}: peak allocated {fmt_bytes(m.peak_allocated_bytes)}")
        if m.peak_op:
            line += f" in {shorten(m.peak_op, 60)}"
        if m.device_type != 0 and m.reserved_at_peak_bytes is not None:
            line += (f", reserved then {fmt_bytes(m.reserved_at_peak_bytes)} "
                     f"({fmt_bytes(m.cache_at_peak_bytes)} allocator cache, not a leak)")
        if m.capacity_bytes:
            line += f"; reserved peak {fmt_bytes(m.peak_reserved_bytes)} of " \
                    f"{fmt_bytes(m.capacity_bytes)}"
        out.append(line)
        life = m.lifetimes
        out.append(
            f"{m.device} by lifetime: "
            f"{fmt_bytes(life.live_at_start_bytes)} held before the trace began "
            "(parameters, buffers, optimizer state); allocated (summed over allocations) and "
            f"freed within the same step {fmt_bytes(life.within_step_bytes)} "
            "(activations, temporaries), "
            f"held past their step {fmt_bytes(life.outlive_step_bytes)}, "
            f"outside the steps {fmt_bytes(life.outside_steps_bytes)}")
    return out


def _memory_spread(mem: tuple) -> list[str]:
    """Many ranks: peaks and lifetimes as distributions, the highest peaks named."""
    ranks = len({m.rank for m in mem})
    line = (f"{len(mem)} memory devices on {ranks} ranks: peak allocated "
            f"{_spread(mem, lambda m: m.peak_allocated_bytes, fmt_bytes) or '-'}")
    reserved = _spread(mem, lambda m: m.peak_reserved_bytes, fmt_bytes)
    if reserved:
        line += f"; reserved peak {reserved}"
    out = [line]
    highest = sorted(mem, key=lambda m: m.peak_allocated_bytes or 0, reverse=True)
    out.append("highest peaks: " + ", ".join(
        f"rank {m.rank} {m.device} ({fmt_bytes(m.peak_allocated_bytes)}"
        + (f" in {shorten(m.peak_op, 40)}" if m.peak_op else "") + ")"
        for m in highest[:WORST_NAMED]))
    parts = []
    for key, label in (("live_at_start_bytes", "held before the trace began"),
                       ("within_step_bytes", "allocated and freed within a step"),
                       ("outlive_step_bytes", "held past their step")):
        spread = _spread(mem, lambda m, k=key: getattr(m.lifetimes, k), fmt_bytes)
        if spread:
            parts.append(f"{label} {spread}")
    if parts:
        out.append("by lifetime: " + "; ".join(parts))
    return out


def graphs_lines(report: Report) -> list[str]:
    per_rank = report.graphs.per_rank if report.graphs else ()
    if _many_ranks(per_rank):
        return _graphs_spread(per_rank)
    out = []
    for g in per_rank:
        rank = f"rank {g.rank}: "
        if g.launch_count:
            line = (f"{rank}{g.launch_count} graph replays, {g.kernel_count} kernels "
                    f"linked to them ({fmt_ns(g.device_ns)} of device time)")
            if g.kernels_missing:
                line += (f"; {g.launches_without_activity} replays were recorded without "
                         "their kernels: the device's idle time is not real, so "
                         "gpu-idle-host-bound and small-kernels are not reported")
            out.append(line)
        regions = g.compiled_regions
        if regions:
            out.append(f"{rank}torch.compile regions: " + "; ".join(
                f"{shorten(r.name, 50)} ({r.kernel_count} kernels, "
                f"{r.triton_kernel_count} Triton, {fmt_ns(r.kernel_ns)})"
                for r in regions[:4]))
    return out


def _graphs_spread(per_rank: tuple) -> list[str]:
    """Many ranks: graph replays and compiled regions counted over the ranks."""
    out = []
    replaying = [g for g in per_rank if g.launch_count]
    if replaying:
        line = (f"graph replays on {_ranks(len(replaying))}: "
                f"{_spread(replaying, lambda g: g.launch_count, str)} per rank")
        missing = [g for g in replaying if g.kernels_missing]
        if missing:
            line += (f"; recorded without their kernels on {_ranks(len(missing))} ("
                     + ", ".join(str(g.rank) for g in missing[:WORST_NAMED])
                     + (", …" if len(missing) > WORST_NAMED else "")
                     + "): their idle time is not real, so gpu-idle-host-bound and "
                     "small-kernels are not reported for them")
        out.append(line)
    compiled = [g for g in per_rank if g.compiled_regions]
    if compiled:
        first = compiled[0]
        out.append(f"torch.compile regions on {_ranks(len(compiled))}; rank {first.rank}: "
                   + "; ".join(f"{shorten(r.name, 50)} ({r.kernel_count} kernels, "
                               f"{r.triton_kernel_count} Triton, {fmt_ns(r.kernel_ns)})"
                               for r in first.compiled_regions[:4]))
    return out


def missing_lines(report: Report) -> list[str]:
    """Why a part is absent, for a trace that was read."""
    if not report.inputs:
        return []
    out = []
    if not (report.step_breakdown and report.step_breakdown.per_rank):
        out.append("per-step breakdown: the trace has no ProfilerStep#N and no cpu ops")
    if not report.devices:
        out.append("kernel efficiency and graph replays: no device activity in the trace")
    if not report.memory:
        out.append("memory timeline: no [memory] events (record with "
                   "torch.profiler.profile(profile_memory=True))")
    return out


def sections(report: Report) -> list[tuple[str, list[str]]]:
    """(title, lines) of the line-shaped parts, in report order; empty parts left out."""
    parts = [
        ("Kernel efficiency", efficiency_lines(report)),
        ("Critical path", critical_path_lines(report)),
        ("Memory", memory_lines(report)),
        ("Graphs", graphs_lines(report)),
        ("Not in this trace", missing_lines(report)),
    ]
    return [(title, lines) for title, lines in parts if lines]
