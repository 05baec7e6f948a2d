"""The findings as a person reads them: rank, verdict, saving, where (source
files relative to the run's directory), the fix, the evidence with units, the
lint findings that match, and what the avoidable ones save together."""

from __future__ import annotations

import os

from fastenough.render import lint_section
from fastenough.render.ranks import RANK_DISTRIBUTION_OVER, WORST_NAMED, median
from fastenough.render.table import Table
from fastenough.render.units import fmt_evidence_value, fmt_saving, fmt_where
from fastenough.render.view.model import Code, FindingView


def findings_views(report: dict) -> list[FindingView]:
    views = []
    cwd = (report.get("meta") or {}).get("cwd")
    for i, f in enumerate(report.get("findings") or [], start=1):
        pairs = [(k, fmt_evidence_value(k, v)) for k, v in (f.get("evidence") or {}).items()]
        saving = f.get("saving") or {}
        fraction = saving.get("share_of_step")
        views.append(
            FindingView(
                rank=i,
                code=Code(f.get("code", "?")),
                verdict=f.get("verdict", "?"),
                title=f.get("title", ""),
                saving=_saving_text(f),
                where=[Code(fmt_where(_relative_where(w, cwd)))
                       for w in (f.get("where") or [])][:5],
                action=f.get("action", ""),
                evidence=[f"{k} = {v}" for k, v in pairs],
                evidence_pairs=pairs,
                saving_share=fraction if isinstance(fraction, (int, float)) and fraction >= 0
                else None,
                also_in_source=[Code(s) for s in lint_section.also_in_source(f)],
            )
        )
    return views


def _relative_where(where: dict, cwd: str | None) -> dict:
    """Source files under the run's working directory are named relative to it:
    shorter, and the same on every machine the report is read on."""
    path = where.get("file")
    if not path or not cwd or not os.path.isabs(path):
        return where
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return where
    if rel.startswith(".."):
        return where
    return {**where, "file": rel}


def _saving_text(finding: dict) -> str:
    text = fmt_saving(finding.get("saving"))
    text = "not estimated" if text == "-" else text
    overlaps = finding.get("overlaps") or []
    if overlaps:
        text += f"; overlaps {', '.join(overlaps)} (the same time: not to be added up)"
    return text


def findings_table(views: list[FindingView]) -> Table | None:
    """One row per finding, for a reader who scans before reading the details."""
    if not views:
        return None
    rows = [[str(v.rank), v.code, v.verdict, v.saving, v.title] for v in views]
    return Table("Findings", ["#", "code", "verdict", "saving", "what"], rows,
                 right={0})


def avoidable_line(report: dict) -> str | None:
    """What the avoidable findings save together, overlapping ones once."""
    totals = [t for t in report.get("avoidable") or [] if t.get("findings")]
    if not totals:
        return None
    if len(totals) > RANK_DISTRIBUTION_OVER:
        shares = [min(1.0, t.get("share_of_step") or 0.0) for t in totals]
        most = sorted(totals, key=lambda t: t.get("share_of_step") or 0.0, reverse=True)
        named = ", ".join(f"rank {t['rank']} ({min(1.0, t.get('share_of_step') or 0.0):.0%})"
                          for t in most[:WORST_NAMED])
        return (f"Together, per rank ({len(totals)} ranks with avoidable findings): at most "
                f"{min(shares):.0%} / {median(shares):.0%} / {max(shares):.0%} of a step "
                f"(min / median / max), overlapping findings counted once; the most: {named}.")
    parts = []
    for t in totals:
        share = min(1.0, t.get("share_of_step") or 0.0)
        rank = f"rank {t['rank']}: " if len(totals) > 1 else ""
        overlapping = t["findings"] - t.get("groups", t["findings"])
        note = (f", {overlapping} of them overlapping others, counted once"
                if overlapping > 0 else "")
        parts.append(f"{rank}at most {share:.0%} of a step from {t['findings']} "
                     f"avoidable finding{'s' if t['findings'] != 1 else ''}{note}")
    return "Together: " + "; ".join(parts) + "."
