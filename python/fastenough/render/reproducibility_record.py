"""The reproducibility record (docs/method.md, Verify): what ran, where, with which
versions, device, batch, dtype and peaks, so that a reader can tell whether
two reports are comparable. One table that every renderer shows."""

from __future__ import annotations

import shlex
import time

from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_ns
from fastenough.render.view.phases import aligned_details, detail, phase_groups
from fastenough.report.dtype import compute_dtype
from fastenough.report.main_agent import agent_devices_text, main_agent
from fastenough.report.model import Meta, MetaAgent, Report


def utc(ns) -> str | None:
    if not ns:
        return None
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ns / 1e9))


def items_per_step(report: Report) -> float | None:
    steps = report.steps
    sps, ips = steps.steady_steps_per_s, steps.items_per_s
    if not sps or not ips:
        return None
    return ips / sps


def _devices_text(meta: Meta, agent: MetaAgent | None) -> str | None:
    sampled = meta.devices or ()  # the devices the run's sampler saw
    if sampled:
        names: dict[str, int] = {}
        for d in sampled:
            label = d.name or (d.source if d.source is not None else "device")
            if d.mem_total_bytes:
                label += f" ({fmt_bytes(d.mem_total_bytes)})"
            names[label] = names.get(label, 0) + 1
        return ", ".join(f"{n} × {k}" if n > 1 else k for k, n in names.items())
    props = meta.device_properties
    if props:
        names = {}
        for p in props:
            label = p.name
            if p.total_memory_bytes:
                label += f" ({fmt_bytes(p.total_memory_bytes)})"
            names[label] = names.get(label, 0) + 1
        return ", ".join(f"{n} × {k}" if n > 1 else k for k, n in names.items())
    return agent_devices_text(agent)


def _peaks(report: Report) -> list[str]:
    phases = report.phases
    details = aligned_details(report)
    out = []
    best: dict[str, tuple[float, str]] = {}
    for name, members in phase_groups(phases, details):
        for p, d in members:
            for key, label, v in (("alloc", "allocated", p.alloc_peak),
                                  ("reserved", "reserved", p.reserved_peak),
                                  ("used", "device memory used", p.mem_used_max),
                                  ("rss", "RSS", detail(d, "rss_max"))):
                if v is not None and v > best.get(key, (-1, ""))[0]:
                    best[key] = (v, f"{label} {fmt_bytes(v)} ({name})")
    for key in ("alloc", "reserved", "used", "rss"):
        if key in best:
            out.append(best[key][1])
    return out


def record_table(report: Report) -> Table | None:
    meta = report.meta
    run = report.run
    agent = main_agent(meta)
    rows: list[list[str]] = []

    def add(what: str, value) -> None:
        if value not in (None, "", []):
            rows.append([what, str(value)])

    command = (run.command if run else None) or meta.command
    if isinstance(command, (list, tuple)):
        command = shlex.join(command)
    add("command", command)
    if run:
        ending = (f"signal {run.signal}" if run.signal
                  else f"exit status {run.exit_status}")
        add("ended", f"{ending} after {fmt_ns(run.wall_ns)}")
    # meta.json's record (fastenough run), typed; None where the file had no such key.
    add("started", utc(meta.start_wall_ns))
    add("host", meta.host)
    add("working directory", meta.cwd)
    git = meta.git
    if git is not None and git.revision:
        add("git", git.revision[:12] + (" (uncommitted changes)" if git.dirty else ""))
    versions = [f"fastenough {meta.fastenough_version or report.tool_version}"]
    if agent and agent.python:
        versions.append(f"Python {agent.python}")
    if agent and agent.torch:
        versions.append(f"torch {agent.torch}")
    if agent and agent.cuda:
        versions.append(f"CUDA {agent.cuda}")
    add("versions", ", ".join(versions))
    add("devices", _devices_text(meta, agent))
    world = meta.world_size or (agent.world_size if agent else None)
    if world and world > 1:
        add("ranks", f"{world}" + (f" ({meta.backend})" if meta.backend else ""))
    per_step = items_per_step(report)
    if per_step:
        unit = "item" if per_step == 1 else "items"
        add("batch", f"{per_step:.4g} {unit} per step (steady, all ranks)")
    add("dtype", compute_dtype(report) and f"{compute_dtype(report)} (matmul inputs in the trace)")
    add("peaks", "; ".join(_peaks(report)))
    opts = meta.agent_opts
    if opts is not None and opts.key_order:  # an empty {} says nothing
        window = "off" if opts.trace is False else f"{opts.trace_steps} steps"
        add("options", f"warmup {opts.warmup_steps} steps, profiler window {window}"
            + (", probes on" if opts.probe else ""))
    if not run:
        add("traces", ", ".join(i.path for i in report.inputs))
    if not rows:
        return None
    return Table("Reproducibility record", ["field", "value"], rows)
