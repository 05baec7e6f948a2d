"""The Steady steps lines: step counts and times, steady throughput per mode,
how the figures were made, and the batch-size sweep's knee."""

from __future__ import annotations

from dataclasses import dataclass

from fastenough.render.bounded import steps_omitted_lines
from fastenough.render.units import fmt_ns, fmt_num
from fastenough.report.model import MetaAgent, Report, RunDetailsStepsByModeItem


def steps_lines(report: Report) -> list[str]:
    steps = report.steps
    if not steps.count:
        return []
    out = [
        f"{steps.count} steps: median {fmt_ns(steps.median_ns)}, "
        f"p10 {fmt_ns(steps.p10_ns)}, p90 {fmt_ns(steps.p90_ns)}"
    ]
    by_mode = list(report.run_details.steps_by_mode) if report.run_details else []
    if not by_mode and steps.steady_count:
        by_mode = [_Mode(steady_count=steps.steady_count, median_ns=steps.steady_median_ns,
                         p10_ns=steps.steady_p10_ns, p90_ns=steps.steady_p90_ns,
                         steps_per_s=steps.steady_steps_per_s, items_per_s=steps.items_per_s,
                         tokens_per_s=steps.tokens_per_s)]
    for m in by_mode:
        label = f"{m.mode}: " if m.mode and len(by_mode) > 1 else ""
        out.append(
            f"{label}{m.steady_count} steady steps: median {fmt_ns(m.median_ns)}, "
            f"p10 {fmt_ns(m.p10_ns)}, p90 {fmt_ns(m.p90_ns)}")
        texts = rates(m)
        if texts:
            out.append(f"{label}steady throughput: " + ", ".join(texts))
    notes = _steps_notes(report, by_mode)
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    out.extend(steps_omitted_lines(report))
    return out


@dataclass(frozen=True)
class _Mode:
    """The steady figures of a report without run_details.steps_by_mode (a trace's),
    shaped as one of its rows."""
    steady_count: int = 0
    median_ns: float | None = None
    p10_ns: float | None = None
    p90_ns: float | None = None
    steps_per_s: float | None = None
    items_per_s: float | None = None
    tokens_per_s: float | None = None
    real_tokens_per_s: float | None = None
    mode: str | None = None
    ranks: int | None = None


def rates(m: RunDetailsStepsByModeItem | _Mode) -> list[str]:
    """'10.03 steps/s', '10.0 items/s', '642 tokens/s (374 without padding)'."""
    out = []
    if m.steps_per_s:
        out.append(f"{m.steps_per_s:.2f} steps/s")
    if m.items_per_s:
        out.append(f"{m.items_per_s:.1f} items/s")
    if m.tokens_per_s:
        tokens = f"{m.tokens_per_s:.0f} tokens/s"
        if m.real_tokens_per_s:
            tokens += f" ({m.real_tokens_per_s:.0f} without padding)"
        out.append(tokens)
    return out


def steady_rates(report: Report) -> list[str]:
    """The headline mode's steady rates, as the Steps section writes them."""
    steps = report.steps
    by_mode = report.run_details.steps_by_mode if report.run_details else ()
    mode = steps.mode
    for m in by_mode:
        if m.mode == mode:
            return rates(m)
    return rates(_Mode(steps_per_s=steps.steady_steps_per_s, items_per_s=steps.items_per_s,
                       tokens_per_s=steps.tokens_per_s,
                       real_tokens_per_s=steps.real_tokens_per_s))


def _steps_notes(report: Report, by_mode: list) -> list[str]:
    """How the figures were made, where a reader could take them for something else."""
    notes = []
    ranks = max((m.ranks or 1 for m in by_mode), default=1)
    if ranks > 1:
        notes.append(f"steps/s of rank 0, items and tokens summed over {ranks} ranks")
    agents = meta_agents(report)
    if any(a.batch_dim == 1 for a in agents if a.role in ("main", "rank")):
        notes.append("items from dimension 1 of the input: the model's recurrent/attention "
                     "layers are sequence-first")
    if any(m.real_tokens_per_s for m in by_mode):
        notes.append("tokens without padding from the attention masks of the examined forwards")
    return notes


def meta_agents(report: Report) -> tuple[MetaAgent, ...]:
    """meta.agents: each process's agent record."""
    return report.meta.agents or ()


def batch_sweep_line(report: Report) -> str | None:
    """The knee the workload measured with fastenough.sweep_batch (meta.batch_sweep)."""
    sweep = report.meta.batch_sweep
    if sweep is None:
        return None
    ok = [p for p in sweep.points if p.status == "ok"]
    knee = next((p for p in ok if p.size == sweep.knee), None)
    if knee is None:
        return "fastenough.sweep_batch: no batch size ran"
    within = sweep.within or 0
    text = (f"knee at batch {knee.size} ({fmt_num(knee.items_per_s)} items/s, "
            f"within {within:.0%} of the best, batch {sweep.best}); sizes tried: "
            + ", ".join(str(p.size) for p in sweep.points))
    if sweep.out_of_memory_at is not None:
        text += f"; out of memory at {sweep.out_of_memory_at}"
    if sweep.protocol_change:
        text += ("; a protocol change (" + ", ".join(sweep.semantics) + ")")
    return text
