"""The findings as a person reads them: rank, verdict, saving, where (source
files relative to the run's directory), the fix, the evidence with units, the
lint findings that match, and what the avoidable ones save together."""

from __future__ import annotations

import os

from fastenough.render import lint_section
from fastenough.render.ranks import RANK_DISTRIBUTION_OVER, WORST_NAMED, median
from fastenough.render.table import Table
from fastenough.render.units import fmt_evidence_value, fmt_saving, fmt_share, fmt_where
from fastenough.render.view.model import Code, FindingView
from fastenough.report.model import Finding, Location, Report


def findings_views(report: Report) -> list[FindingView]:
    """One view per finding; for a job of more than RANK_DISTRIBUTION_OVER ranks,
    one per code and verdict, over the ranks that have it (report.json keeps
    every rank's finding)."""
    findings = list(report.findings)
    ranks = {f.rank for f in findings if f.rank is not None}
    if len(ranks) > RANK_DISTRIBUTION_OVER:
        return _grouped_views(findings, report)
    return _views(findings, report)


def _views(findings: list[Finding], report: Report) -> list[FindingView]:
    views = []
    cwd = report.meta.cwd
    for i, f in enumerate(findings, start=1):
        pairs = [(k, fmt_evidence_value(k, v)) for k, v in f.evidence.items()]
        fraction = f.saving.share_of_step
        views.append(
            FindingView(
                rank=i,
                code=Code(f.code),
                verdict=f.verdict,
                title=f.title,
                saving=_saving_text(f),
                saving_figure=_saving_figure(f),
                where=[Code(fmt_where(_relative_where(w, cwd))) for w in f.where][:5],
                action=f.action,
                evidence=[f"{k} = {v}" for k, v in pairs],
                evidence_pairs=pairs,
                saving_share=fraction if isinstance(fraction, (int, float)) and fraction >= 0
                else None,
                also_in_source=[Code(s) for s in lint_section.also_in_source(f)],
                overlaps=[Code(c) for c in f.overlaps or ()],
                source=f.source or "",
                on_rank=f.rank,
            )
        )
    return views


def _share(f: Finding) -> float:
    v = f.saving.share_of_step
    return v if isinstance(v, (int, float)) and v >= 0 else -1.0


def _grouped_views(findings: list[Finding], report: Report) -> list[FindingView]:
    """Findings of many ranks: those of one code and verdict on several ranks
    become one view, in the place of its first, shown through the rank whose
    saving is the largest, its title saying on how many ranks it is and its
    saving giving min / median / max over them and naming the WORST_NAMED
    ranks with the most. Job-level findings (no rank) stay as they are."""
    ranks_in_job = len({f.rank for f in findings if f.rank is not None})
    groups: dict[tuple, list[Finding]] = {}
    order: list[tuple] = []
    for i, f in enumerate(findings):
        key = (f.code, f.verdict) if f.rank is not None else ("#", i)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(f)
    shown = [max(groups[k], key=_share) for k in order]
    views = _views(shown, report)
    for view, key in zip(views, order, strict=True):
        members = groups[key]
        if len(members) < 2:
            continue
        top = max(members, key=_share)
        view.title += f" (on {len(members)} of {ranks_in_job} ranks; shown: rank {top.rank})"
        shares = [_share(f) for f in members if _share(f) >= 0]
        if shares:
            most = sorted(members, key=_share, reverse=True)[:WORST_NAMED]
            named = ", ".join(f"rank {f.rank} ({_share(f):.0%})" for f in most)
            view.saving = (f"per rank {min(shares):.0%} / {median(shares):.0%} / "
                           f"{max(shares):.0%} of a step (min / median / max); the most: "
                           f"{named}. Rank {top.rank}: {view.saving}")
    return views


def _relative_where(where: Location, cwd: str | None) -> Location:
    """The location, source files under the run's working directory named relative to
    it: shorter, and the same on every machine the report is read on."""
    path = where.file
    if not path or not cwd or not os.path.isabs(path):
        return where
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return where
    if rel.startswith(".."):
        return where
    return where.replace(file=rel)


def _saving_figure(finding: Finding) -> str:
    text = fmt_saving(finding.saving)
    return "not estimated" if text == "-" else text


def _saving_text(finding: Finding) -> str:
    text = _saving_figure(finding)
    uncapped = finding.evidence.get("uncapped_share_of_step")
    if isinstance(uncapped, (int, float)):
        text += (f" (measured {fmt_share(uncapped)} of a step, lowered to the critical "
                 f"path's time on its events)")
    overlaps = finding.overlaps or ()
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


def avoidable_line(report: Report) -> str | None:
    """What the avoidable findings save together, overlapping ones once."""
    totals = [t for t in report.avoidable or () if t.findings]
    if not totals:
        return None
    if len(totals) > RANK_DISTRIBUTION_OVER:
        shares = [min(1.0, t.share_of_step or 0.0) for t in totals]
        most = sorted(totals, key=lambda t: t.share_of_step or 0.0, reverse=True)
        named = ", ".join(f"rank {t.rank} ({min(1.0, t.share_of_step or 0.0):.0%})"
                          for t in most[:WORST_NAMED])
        return (f"Together, per rank ({len(totals)} ranks with avoidable findings): at most "
                f"{min(shares):.0%} / {median(shares):.0%} / {max(shares):.0%} of a step "
                f"(min / median / max), overlapping findings counted once; the most: {named}.")
    parts = []
    for t in totals:
        share = min(1.0, t.share_of_step or 0.0)
        rank = f"rank {t.rank}: " if len(totals) > 1 else ""
        overlapping = t.findings - t.groups
        note = (f", {overlapping} of them overlapping others, counted once"
                if overlapping > 0 else "")
        parts.append(f"{rank}at most {share:.0%} of a step from {t.findings} "
                     f"avoidable finding{'s' if t.findings != 1 else ''}{note}")
    return "Together: " + "; ".join(parts) + "."
