"""The findings, ranked as the report ranks them (those that change results
first, then the largest saving): verdict, what it costs, where, the fix, and
the evidence behind it (folded, with every number and its unit)."""

from __future__ import annotations

from fastenough.render.html.svg import esc
from fastenough.render.view.model import FindingView, LintView, ReportView

VERDICT_TEXT = {
    "avoidable": "avoidable",
    "bounded": "bounded",
    "insufficient-evidence": "needs evidence",
}
_BAR = {"avoidable": "#c62828", "bounded": "#b7791f", "insufficient-evidence": "#0b6e99"}


def _saving_bar(v: FindingView) -> str:
    if v.saving_share is None:
        return ""
    w = max(0.0, min(1.0, v.saving_share)) * 200
    color = _BAR.get(v.verdict, "#616e7c")
    return (f'<span class="bar"><svg viewBox="0 0 200 10" role="img" '
            f'aria-label="saving: {esc(v.saving)}"><rect width="200" height="10" rx="2" '
            f'fill="#eef1f4"/><rect width="{w:.1f}" height="10" rx="2" fill="{color}"/>'
            "</svg></span>")


def finding_html(v: FindingView) -> str:
    verdict = esc(v.verdict)
    out = [f'<article class="finding {verdict}" id="finding-{v.rank}" data-code="{esc(v.code)}">',
           '<div class="head">',
           f'<span class="rank">#{v.rank}</span>',
           f'<code class="code">{esc(v.code)}</code>',
           f'<span class="verdict {verdict}">{esc(VERDICT_TEXT.get(v.verdict, v.verdict))}'
           "</span></div>",
           f'<div class="title">{esc(v.title)}</div>',
           f'<div class="saving">{_saving_bar(v)}<strong>saving: {esc(v.saving)}</strong></div>',
           '<dl class="facts">']
    for w in v.where:
        out.append(f"<dt>where</dt><dd><code>{esc(w)}</code></dd>")
    for src in v.also_in_source:
        out.append(f"<dt>also in source</dt><dd><code>{esc(src)}</code></dd>")
    if v.action:
        out.append(f"<dt>fix</dt><dd>{esc(v.action)}</dd>")
    out.append("</dl>")
    if v.evidence_pairs:
        out.append(f"<details><summary>evidence ({len(v.evidence_pairs)} figures)</summary>"
                   '<dl class="evidence">')
        for k, val in v.evidence_pairs:
            out.append(f"<dt>{esc(k)}</dt><dd>{esc(val)}</dd>")
        out.append("</dl></details>")
    out.append("</article>")
    return "".join(out)


def _unconfirmed_lint(lint: LintView | None) -> str:
    """Lint findings the run did not confirm: apart from the ranked list."""
    if not lint:
        return ""
    items = "".join(f"<li><code>{esc(line)}</code></li>" for line in lint.entries)
    return f'<p class="note">Lint: {esc(lint.head)}:</p><ul class="lint">{items}</ul>'


def _repeatability(lines: list[str]) -> str:
    """Earlier runs of the same command: the findings stable across them and
    those that came and went (render/repeatability.py)."""
    if not lines:
        return ""
    items = "".join(f"<li>{esc(line)}</li>" for line in lines[1:])
    return f'<p class="note">Repeatability: {esc(lines[0])}</p><ul class="lint">{items}</ul>'


def findings_html(view: ReportView) -> str:
    views = view.findings
    lint = _unconfirmed_lint(view.lint) + _repeatability(view.repeatability)
    if not views:
        line = view.no_findings
        return f'<p class="empty">{esc(line[0].upper() + line[1:])}</p>' + lint
    together = view.avoidable
    intro = (f'<p class="note">{len(views)} finding{"s" if len(views) != 1 else ""}: those '
             "that change results first, then the largest possible saving. A saving marked "
             "≤ is an upper bound from measured time; one marked ≈ is an estimate that the "
             "real saving may exceed." + (f" {esc(together)}" if together else "") + "</p>")
    return intro + "".join(finding_html(v) for v in views) + lint
