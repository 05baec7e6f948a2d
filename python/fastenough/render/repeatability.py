"""The repeatability section of a run's report (store/repeatability.py makes
it): the findings stable across the runs of one command in the history, with
their savings' spread, and those that came and went."""

from __future__ import annotations

from fastenough.render.units import fmt_ns, fmt_share
from fastenough.report.model import RepeatSpread, Report


def lines(report: Report) -> list[str]:
    """The section as logical lines, the head first (empty: no section). Plain
    text: each renderer escapes it."""
    r = report.repeatability
    if r is None:
        return []
    n = r.runs
    earlier = n - 1
    head = (f"this run and {earlier} earlier run{'s' if earlier != 1 else ''} of the same "
            "command in the history: ")
    stable = list(r.stable)
    varied = list(r.varied)
    if not varied:
        head += f"the same findings in all {n}" if stable else "no findings in any"
    else:
        head += (f"{len(stable)} finding{'s' if len(stable) != 1 else ''} in all {n}, "
                 f"{len(varied)} came and went (a finding seen in some runs only is not "
                 "established: run again, or confirm its fix with fastenough ab)")
    out = [head[0].upper() + head[1:]]

    # Ranks are named only in a job of several.
    ranks = {e.rank for e in stable + varied if e.rank is not None}

    def name(e) -> str:
        named = len(ranks) > 1 and e.rank is not None
        return str(e.code) + (f" (rank {e.rank})" if named else "")

    def rng(d: RepeatSpread | None, fmt, unit: str = "") -> str | None:
        if d is None:
            return None
        lo, hi = fmt(d.min), fmt(d.max)
        return (lo if lo == hi else f"{lo} to {hi}") + unit

    for e in stable:
        per_step = rng(e.per_step_ns, fmt_ns, "/step")
        share = rng(e.share_of_step, fmt_share, " of a step")
        highest = [d.max for d in (e.per_step_ns, e.share_of_step) if d is not None]
        if highest and not any(highest):
            saving = "none of its own"
        else:
            saving = ", ".join(x for x in (per_step, share) if x) or "not estimated"
        out.append(f"stable: {name(e)} in all {n} runs; saving {saving}")
    for e in varied:
        k = e.runs
        where = "this run among them" if e.in_this_run else "not in this run"
        out.append(f"came and went: {name(e)} in {k} of {n} runs ({where})")
    return out
