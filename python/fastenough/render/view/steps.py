"""The Steady steps lines: step counts and times, steady throughput per mode,
how the figures were made, and the batch-size sweep's knee."""

from __future__ import annotations

from fastenough.render.bounded import steps_omitted_lines
from fastenough.render.units import fmt_ns, fmt_num


def steps_lines(report: dict) -> list[str]:
    steps = report.get("steps") or {}
    if not steps or not steps.get("count"):
        return []
    out = [
        f"{steps['count']} steps: median {fmt_ns(steps.get('median_ns'))}, "
        f"p10 {fmt_ns(steps.get('p10_ns'))}, p90 {fmt_ns(steps.get('p90_ns'))}"
    ]
    by_mode = (report.get("run_details") or {}).get("steps_by_mode") or []
    if not by_mode and steps.get("steady_count"):
        by_mode = [{"mode": None, "steady_count": steps["steady_count"],
                    "median_ns": steps.get("steady_median_ns"),
                    "p10_ns": steps.get("steady_p10_ns"), "p90_ns": steps.get("steady_p90_ns"),
                    "steps_per_s": steps.get("steady_steps_per_s"),
                    "items_per_s": steps.get("items_per_s"),
                    "tokens_per_s": steps.get("tokens_per_s")}]
    for m in by_mode:
        label = f"{m['mode']}: " if m.get("mode") and len(by_mode) > 1 else ""
        out.append(
            f"{label}{m['steady_count']} steady steps: median {fmt_ns(m.get('median_ns'))}, "
            f"p10 {fmt_ns(m.get('p10_ns'))}, p90 {fmt_ns(m.get('p90_ns'))}")
        texts = rates(m)
        if texts:
            out.append(f"{label}steady throughput: " + ", ".join(texts))
    notes = _steps_notes(report, by_mode)
    if notes:
        out.append("(" + "; ".join(notes) + ")")
    out.extend(steps_omitted_lines(report))
    return out


def rates(m: dict) -> list[str]:
    """'10.03 steps/s', '10.0 items/s', '642 tokens/s (374 without padding)'."""
    out = []
    if m.get("steps_per_s"):
        out.append(f"{m['steps_per_s']:.2f} steps/s")
    if m.get("items_per_s"):
        out.append(f"{m['items_per_s']:.1f} items/s")
    if m.get("tokens_per_s"):
        tokens = f"{m['tokens_per_s']:.0f} tokens/s"
        if m.get("real_tokens_per_s"):
            tokens += f" ({m['real_tokens_per_s']:.0f} without padding)"
        out.append(tokens)
    return out


def steady_rates(report: dict) -> list[str]:
    """The headline mode's steady rates, as the Steps section writes them."""
    steps = report.get("steps") or {}
    by_mode = (report.get("run_details") or {}).get("steps_by_mode") or []
    mode = steps.get("mode")
    for m in by_mode:
        if m.get("mode") == mode:
            return rates(m)
    return rates({"steps_per_s": steps.get("steady_steps_per_s"),
                  "items_per_s": steps.get("items_per_s"),
                  "tokens_per_s": steps.get("tokens_per_s"),
                  "real_tokens_per_s": steps.get("real_tokens_per_s")})


def _steps_notes(report: dict, by_mode: list[dict]) -> list[str]:
    """How the figures were made, where a reader could take them for something else."""
    notes = []
    ranks = max((m.get("ranks") or 1 for m in by_mode), default=1)
    if ranks > 1:
        notes.append(f"steps/s of rank 0, items and tokens summed over {ranks} ranks")
    agents = meta_agents(report)
    if any(a.get("batch_dim") == 1 for a in agents if a.get("role") in ("main", "rank")):
        notes.append("items from dimension 1 of the input: the model's recurrent/attention "
                     "layers are sequence-first")
    if any(m.get("real_tokens_per_s") for m in by_mode):
        notes.append("tokens without padding from the attention masks of the examined forwards")
    return notes


def meta_agents(report: dict) -> list[dict]:
    agents = (report.get("meta") or {}).get("agents")
    return agents if isinstance(agents, list) else []


def batch_sweep_line(report: dict) -> str | None:
    """The knee the workload measured with fastenough.sweep_batch (meta.batch_sweep)."""
    sweep = (report.get("meta") or {}).get("batch_sweep")
    if not isinstance(sweep, dict):
        return None
    ok = [p for p in sweep.get("points") or [] if p.get("status") == "ok"]
    knee = next((p for p in ok if p.get("size") == sweep.get("knee")), None)
    if knee is None:
        return "fastenough.sweep_batch: no batch size ran"
    within = sweep.get("within") or 0
    text = (f"knee at batch {knee['size']} ({fmt_num(knee.get('items_per_s'))} items/s, "
            f"within {within:.0%} of the best, batch {sweep.get('best')}); sizes tried: "
            + ", ".join(str(p.get("size")) for p in sweep.get("points") or []))
    if sweep.get("out_of_memory_at") is not None:
        text += f"; out of memory at {sweep['out_of_memory_at']}"
    if sweep.get("protocol_change"):
        text += ("; a protocol change (" + ", ".join(sweep.get("semantics") or []) + ")")
    return text
