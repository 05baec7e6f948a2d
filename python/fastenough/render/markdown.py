"""Markdown report, ready to paste into a pull request or an issue: the HTML
report's sections in its order, without the charts. Long parts (evidence, top
kernels and ops, inputs) are folded in <details> so that a comment stays short;
GitHub and GitLab render them, other viewers show them open."""

from __future__ import annotations

import html

from fastenough.render.escape import md_cell, md_code, md_text
from fastenough.render.table import Table
from fastenough.render.view.build import build_view
from fastenough.render.view.model import ReportView
from fastenough.report.model import Report
from fastenough.visible import visible

# Everything below that comes from the view (names, paths, commands, program
# text, even our own sentences, which quote them) goes through md_text, md_cell
# or md_code (the view's Code strings); only the Markdown this module writes
# itself is left as it is.
_text = md_text
_escape = md_cell


def _table(t: Table, level: str = "###", title: str | None = None) -> str:
    lines = [f"{level} {md_text(title or t.title)}", ""] if level else []
    header = [h or " " for h in t.header]
    lines.append("| " + " | ".join(_escape(h) for h in header) + " |")
    lines.append(
        "|" + "|".join("---:" if i in t.right else "---" for i in range(len(header))) + "|"
    )
    for row in t.rows:
        lines.append("| " + " | ".join(_escape(c) for c in row) + " |")
    if t.note:
        lines += ["", f"_{md_text(t.note)}_"]
    return "\n".join(lines) + "\n\n"


def _folded(summary_text: str, body: str) -> str:
    # The blank lines around the body let the Markdown inside <details> render.
    # The summary line is raw HTML, not Markdown: HTML-escaped, not md_text.
    summary = html.escape(visible(summary_text), quote=False)
    return f"<details><summary>{summary}</summary>\n\n{body.rstrip()}\n\n</details>\n\n"


def _findings(view: ReportView) -> str:
    out = ["## Findings\n\n"]
    if not view.findings:
        line = view.no_findings
        return out[0] + line[0].upper() + line[1:] + "\n\n"
    out.append(_table(view.findings_table, level=""))
    if view.avoidable:
        out.append(_text(view.avoidable) + "\n\n")
    for v in view.findings:
        out.append(f"### {v.rank}. {md_code(v.code)} ({md_text(v.verdict)}): "
                   f"{_text(v.title)}\n\n")
        out.append(f"- **saving**: {md_text(v.saving)}\n")
        for w in v.where:
            out.append(f"- **where**: {md_code(w)}\n")
        for src in v.also_in_source:
            out.append(f"- **also visible in source**: {md_code(src)}\n")
        if v.action:
            out.append(f"- **fix**: {_text(v.action)}\n")
        out.append("\n")
        if v.evidence:
            out.append(_folded(f"evidence ({len(v.evidence)} figures)",
                               "\n".join(f"- {md_code(k)} = {_text(val)}"
                                         for k, val in v.evidence_pairs)))
    return "".join(out)


def _repeatability(view: ReportView) -> str:
    """Earlier runs of the same command: which findings held in all of them."""
    if not view.repeatability:
        return ""
    head, *rest = view.repeatability
    return ("## Repeatability\n\n" + md_text(head, line_start=True) + "\n\n"
            + "".join(f"- {md_text(line)}\n" for line in rest) + "\n")


def _lint(view: ReportView) -> str:
    """Lint findings this run did not confirm: listed apart, never ranked."""
    if not view.lint:
        return ""
    head = view.lint.head[0].upper() + view.lint.head[1:]
    return ("## Lint\n\n" + md_text(head, line_start=True) + ":\n\n"
            + "".join(f"- {md_code(line)}\n" for line in view.lint.entries) + "\n")


def _time(view: ReportView) -> str:
    t = view.phases
    return _table(t, level="##", title="Where the time went: " + t.title.lower()) if t else ""


def _steps(view: ReportView) -> str:
    if not view.steps:
        return ""
    out = "## Steady steps\n\n" + "\n".join(f"- {_text(s)}" for s in view.steps) + "\n\n"
    if view.batch_sweep:
        out += f"**Batch sweep**: {_text(view.batch_sweep)}\n\n"
    cost = view.measurement.tool_cost
    if cost:
        out += f"_{md_text(cost)}_\n\n"
    return out


def _device(view: ReportView) -> str:
    out = ""
    for t in (view.devices, view.idle):
        if t:
            out += _table(t)
    if view.no_device:
        out += f"_{md_text(view.no_device)}_\n\n"
    return "## Device time\n\n" + out if out else ""


def _depth(view: ReportView) -> str:
    """Per-step breakdown, kernel efficiency, critical path, memory, graphs."""
    out = ""
    if view.step_breakdown:
        out += _table(view.step_breakdown)
    for title, lines in view.depth:
        out += f"### {_text(title)}\n\n" + "".join(f"- {_text(line)}\n" for line in lines) + "\n"
    return "## Trace in depth\n\n" + out if out else ""


def _top(view: ReportView) -> str:
    out = ""
    for t in (view.top_kernels, view.top_ops):
        if t:
            out += _folded(f"{t.title} ({len(t.rows)})", _table(t, level=""))
    return "## Top kernels and ops\n\n" + out if out else ""


def _roofline(view: ReportView) -> str:
    if not view.roofline:
        return ""
    out = f"## {md_text(view.roofline.title)}\n\n" + _table(view.roofline, level="")
    if view.roofline_worst:
        out += _table(view.roofline_worst, level="###")
    return out


def _record(view: ReportView) -> str:
    out = ""
    if view.record:
        out += _table(view.record, level="")
    if view.recorded_outputs:
        out += _table(view.recorded_outputs, level="###")
    for t in (view.inputs, view.counters):
        if t:
            out += _folded(f"{t.title} ({len(t.rows)})", _table(t, level=""))
    if view.quirks:
        out += f"_{md_text(view.quirks)}_\n\n"
    return "## Reproducibility record\n\n" + out if out else ""


def report_to_markdown(report: Report) -> str:
    """The Markdown of a typed Report; where the view is built already, view_to_markdown."""
    return view_to_markdown(build_view(report))


def view_to_markdown(view: ReportView) -> str:
    out = ["# fastenough report\n\n"]
    m = view.measurement
    if m.headline:
        out.append(f"**{md_text(m.headline)}**\n\n"
                   + "\n".join("- " + md_text(r) for r in m.reasons)
                   + "\n\n")
    elif m.complete_line:
        out.append(f"{md_text(m.complete_line)}\n\n")
    run = view.run
    if run:
        out.append(f"Run: {md_code(run.command)} {md_text(run.ending)}\n\n")
        if run.in_job:
            out.append(md_text(run.in_job[0].upper() + run.in_job[1:]) + "\n\n")
    figures = [f for f in view.figures if not (run and f.key == "run")]
    if figures:
        out.append("\n".join(f"- **{md_text(f.label)}**: "
                             f"{md_text(f.value + (f' · {f.detail}' if f.detail else ''))}"
                             for f in figures) + "\n\n")
    out.append(_findings(view))
    for part in (_repeatability, _lint, _time, _steps, _device, _depth, _top, _roofline,
                 _record):
        out.append(part(view))
    return "".join(out).rstrip() + "\n"
