"""Markdown report, ready to paste into a pull request or an issue: the HTML
report's sections in its order, without the charts. Long parts (evidence, top
kernels and ops, inputs) are folded in <details> so that a comment stays short;
GitHub and GitLab render them, other viewers show them open."""

from __future__ import annotations

import html

from fastenough.render import depth, lint_section, measurement, record, sections, summary
from fastenough.render.escape import md_cell, md_code, md_text, visible

# Everything below that comes from the report (names, paths, commands, program
# text, even our own sentences, which quote them) goes through md_text, md_cell
# or md_code; only the Markdown this module writes itself is left as it is.
_text = md_text
_escape = md_cell


def _table(t: sections.Table, level: str = "###", title: str | None = None) -> str:
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


def _findings(report: dict) -> str:
    out = ["## Findings\n\n"]
    views = sections.findings_views(report)
    if not views:
        line = measurement.no_findings_line(report)
        return out[0] + line[0].upper() + line[1:] + "\n\n"
    t = sections.findings_table(report)
    out.append(_table(t, level=""))
    together = sections.avoidable_line(report)
    if together:
        out.append(_text(together) + "\n\n")
    for v in views:
        out.append(f"### {v.rank}. {md_code(v.code)} ({md_text(v.verdict)}): "
                   f"{_text(v.title)}\n\n")
        out.append(f"- **saving**: {md_text(v.saving)}\n")
        for w in v.where:
            out.append(f"- **where**: {md_code(w)}\n")
        for src in lint_section.also_in_source((report.get("findings") or [])[v.rank - 1]):
            out.append(f"- **also visible in source**: {md_code(src)}\n")
        if v.action:
            out.append(f"- **fix**: {_text(v.action)}\n")
        out.append("\n")
        if v.evidence:
            out.append(_folded(f"evidence ({len(v.evidence)} figures)",
                               "\n".join(f"- {md_code(k)} = {_text(val)}"
                                         for k, val in v.evidence_pairs)))
    return "".join(out)


def _lint(report: dict) -> str:
    """Lint findings this run did not confirm: listed apart, never ranked."""
    lines = lint_section.unconfirmed_lines(report)
    if not lines:
        return ""
    head = lines[0][0].upper() + lines[0][1:]
    return ("## Lint\n\n" + md_text(head, line_start=True) + ":\n\n"
            + "".join(f"- {md_code(line)}\n" for line in lines[1:]) + "\n")


def _time(report: dict) -> str:
    t = sections.phases_table(report)
    return _table(t, level="##", title="Where the time went: " + t.title.lower()) if t else ""


def _steps(report: dict) -> str:
    lines = sections.steps_lines(report)
    if not lines:
        return ""
    out = "## Steady steps\n\n" + "\n".join(f"- {_text(s)}" for s in lines) + "\n\n"
    sweep = sections.batch_sweep_line(report)
    if sweep:
        out += f"**Batch sweep**: {_text(sweep)}\n\n"
    cost = measurement.tool_cost_line(report)
    if cost:
        out += f"_{md_text(cost)}_\n\n"
    return out


def _device(report: dict) -> str:
    out = ""
    for make in (sections.devices_table, sections.idle_table):
        t = make(report)
        if t:
            out += _table(t)
    no_device = sections.no_device_line(report)
    if no_device:
        out += f"_{md_text(no_device)}_\n\n"
    return "## Device time\n\n" + out if out else ""


def _depth(report: dict) -> str:
    """Per-step breakdown, kernel efficiency, critical path, memory, graphs."""
    out = ""
    t = depth.step_breakdown_table(report)
    if t:
        out += _table(t)
    for title, lines in depth.sections(report):
        out += f"### {_text(title)}\n\n" + "".join(f"- {_text(line)}\n" for line in lines) + "\n"
    return "## Trace in depth\n\n" + out if out else ""


def _top(report: dict) -> str:
    out = ""
    for make in (sections.top_kernels_table, sections.top_ops_table):
        t = make(report)
        if t:
            out += _folded(f"{t.title} ({len(t.rows)})", _table(t, level=""))
    return "## Top kernels and ops\n\n" + out if out else ""


def _record(report: dict) -> str:
    out = ""
    t = record.record_table(report)
    if t:
        out += _table(t, level="")
    t = sections.records_table(report)
    if t:
        out += _table(t, level="###")
    for make in (sections.inputs_table, sections.counters_table):
        t = make(report)
        if t:
            out += _folded(f"{t.title} ({len(t.rows)})", _table(t, level=""))
    quirks = sections.counters_line(report)
    if quirks:
        out += f"_{md_text(quirks)}_\n\n"
    return "## Reproducibility record\n\n" + out if out else ""


def report_to_markdown(report: dict) -> str:
    out = ["# fastenough report\n\n"]
    gaps = measurement.measurement_lines(report)
    if gaps:
        # gaps[1:] are "- reason" lines: the list marker is ours, the reason is text.
        out.append(f"**{md_text(gaps[0])}**\n\n"
                   + "\n".join("- " + md_text(g.removeprefix("- ")) for g in gaps[1:])
                   + "\n\n")
    run = sections.run_parts(report)
    if run:
        out.append(f"Run: {md_code(run[0])} {md_text(run[1])}\n\n")
    figures = summary.figure_lines(report, skip=("run",) if run else ())
    if figures:
        out.append("\n".join(f"- **{md_text(line.split(': ', 1)[0])}**: "
                             f"{md_text(line.split(': ', 1)[1])}"
                             for line in figures) + "\n\n")
    out.append(_findings(report))
    for part in (_lint, _time, _steps, _device, _depth, _top, _record):
        out.append(part(report))
    return "".join(out).rstrip() + "\n"
