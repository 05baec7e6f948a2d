"""What fastenough.record kept, per process (the agents' "records")."""

from __future__ import annotations

from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_num
from fastenough.render.view.steps import meta_agents
from fastenough.report.model import Report


def recorded_outputs_table(report: Report) -> Table | None:
    """From each agent's record (meta.agents[]): its "records"."""
    rows = []
    errors = []
    for a in meta_agents(report):
        rec = a.records
        if rec is None:
            continue
        rank = "-" if a.rank is None else str(a.rank)
        dtypes = ", ".join(f"{k} x{v}" for k, v in (rec.dtypes or {}).items()) or "-"
        rows.append([rank, fmt_num(rec.keys), dtypes, fmt_bytes(rec.bytes),
                     fmt_num(rec.shards), "stopped" if rec.error else "ok"])
        if rec.error:
            errors.append(f"rank {rank}: {rec.error}")
    if not rows:
        return None
    note = "compare two runs with `fastenough compare RUN_A RUN_B`"
    if errors:
        note = ("recording stopped after a writer error, the outputs are incomplete: "
                + "; ".join(errors))
    return Table("Recorded outputs (fastenough.record)",
                 ["rank", "keys", "dtypes", "bytes", "shards", "writer"], rows, note=note,
                 right={1, 3, 4})
