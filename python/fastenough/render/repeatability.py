"""The repeatability section of a run's report (store/repeatability.py makes
it): the findings stable across the runs of one command in the history, with
their savings' spread, and those that came and went."""

from __future__ import annotations

from fastenough.render.units import fmt_ns, fmt_share


def lines(report: dict) -> list[str]:
    """The section as logical lines, the head first (empty: no section). Plain
    text: each renderer escapes it."""
    r = report.get("repeatability")
    if not isinstance(r, dict) or not isinstance(r.get("runs"), int):
        return []
    n = r["runs"]
    earlier = n - 1
    head = (f"this run and {earlier} earlier run{'s' if earlier != 1 else ''} of the same "
            "command in the history: ")
    stable = [e for e in r.get("stable") or [] if isinstance(e, dict)]
    varied = [e for e in r.get("varied") or [] if isinstance(e, dict)]
    if not varied:
        head += f"the same findings in all {n}" if stable else "no findings in any"
    else:
        head += (f"{len(stable)} finding{'s' if len(stable) != 1 else ''} in all {n}, "
                 f"{len(varied)} came and went (a finding seen in some runs only is not "
                 "established: run again, or confirm its fix with fastenough ab)")
    out = [head[0].upper() + head[1:]]

    # Ranks are named only in a job of several.
    ranks = {e["rank"] for e in stable + varied if isinstance(e.get("rank"), int)}

    def name(e: dict) -> str:
        named = len(ranks) > 1 and "rank" in e
        return str(e.get("code", "?")) + (f" (rank {e['rank']})" if named else "")

    def rng(d: dict | None, fmt, unit: str = "") -> str | None:
        if not isinstance(d, dict) or not isinstance(d.get("min"), (int, float)):
            return None
        lo, hi = fmt(d["min"]), fmt(d["max"])
        return (lo if lo == hi else f"{lo} to {hi}") + unit

    for e in stable:
        per_step = rng(e.get("per_step_ns"), fmt_ns, "/step")
        share = rng(e.get("share_of_step"), fmt_share, " of a step")
        highest = [d.get("max") for d in (e.get("per_step_ns"), e.get("share_of_step"))
                   if isinstance(d, dict)]
        if highest and not any(highest):
            saving = "none of its own"
        else:
            saving = ", ".join(x for x in (per_step, share) if x) or "not estimated"
        out.append(f"stable: {name(e)} in all {n} runs; saving {saving}")
    for e in varied:
        k = e.get("runs", "?")
        where = "this run among them" if e.get("in_this_run") else "not in this run"
        out.append(f"came and went: {name(e)} in {k} of {n} runs ({where})")
    return out
