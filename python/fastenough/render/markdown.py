"""Markdown report: the same sections as the terminal report."""

from __future__ import annotations

from fastenough.render import lint_section, measurement, sections


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def _table(t: sections.Table) -> str:
    lines = [f"## {t.title}", ""]
    lines.append("| " + " | ".join(t.header) + " |")
    lines.append(
        "|" + "|".join("---:" if i in t.right else "---" for i in range(len(t.header))) + "|"
    )
    for row in t.rows:
        lines.append("| " + " | ".join(_escape(c) for c in row) + " |")
    if t.note:
        lines += ["", f"_{t.note}_"]
    return "\n".join(lines) + "\n\n"


def report_to_markdown(report: dict) -> str:
    out = ["# fastenough report\n\n"]
    gaps = measurement.measurement_lines(report)
    if gaps:
        out.append(f"**{gaps[0]}**\n\n" + "\n".join(gaps[1:]) + "\n\n")
    run_line = sections.run_line(report)
    if run_line:
        out.append(f"Run: {run_line}; run directory `{report['run'].get('run_dir', '')}`\n\n")
    for make in sections.TABLES_BEFORE_STEPS:
        t = make(report)
        if t:
            out.append(_table(t))
    quirks = sections.counters_line(report)
    if quirks:
        out.append(f"_{quirks}_\n\n")
    no_device = sections.no_device_line(report)
    if no_device:
        out.append(f"_{no_device}_\n\n")
    steps = sections.steps_lines(report)
    if steps:
        out.append("## Steps\n\n" + "\n".join(f"- {s}" for s in steps) + "\n\n")
    cost = measurement.tool_cost_line(report)
    if cost:
        out.append(f"_{cost}_\n\n")
    for make in sections.TABLES_AFTER_STEPS:
        t = make(report)
        if t:
            out.append(_table(t))
    views = sections.findings_views(report)
    out.append("## Findings\n\n")
    if not views:
        line = measurement.no_findings_line(report)
        out.append(line[0].upper() + line[1:] + "\n")
    for v in views:
        out.append(f"### {v.rank}. `{v.code}` ({v.verdict}): {v.title}\n\n")
        out.append(f"- **saving**: {v.saving}\n")
        for w in v.where:
            out.append(f"- **where**: `{w}`\n")
        for s in lint_section.also_in_source((report.get("findings") or [])[v.rank - 1]):
            out.append(f"- **also visible in source**: `{s}`\n")
        if v.evidence:
            out.append("- **evidence**: " + "; ".join(v.evidence) + "\n")
        if v.action:
            out.append(f"- **fix**: {v.action}\n")
        out.append("\n")
    lint_lines = lint_section.unconfirmed_lines(report)
    if lint_lines:
        out.append("## Lint\n\n" + lint_lines[0][0].upper() + lint_lines[0][1:] + ":\n\n")
        out += [f"- `{line}`\n" for line in lint_lines[1:]]
        out.append("\n")
    return "".join(out)
