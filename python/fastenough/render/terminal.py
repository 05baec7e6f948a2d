"""Terminal report (rich): the same sections as the Markdown report."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from fastenough.render import depth, lint_section, measurement, sections

VERDICT_STYLE = {
    "avoidable": "bold red",
    "bounded": "yellow",
    "insufficient-evidence": "cyan",
}


def rich_table(t: sections.Table, wrapping: set[str] | None = None) -> RichTable:
    """A sections.Table for rich. `wrapping`: the header names of the only columns that
    may fold (the others keep one line, cut with an ellipsis); None: every column folds."""
    table = RichTable(title=t.title, title_justify="left", title_style="bold", expand=False)
    for i, h in enumerate(t.header):
        wraps = wrapping is None or (h in wrapping and i > 0)
        table.add_column(h, justify="right" if i in t.right else "left",
                         overflow="fold" if wraps else "ellipsis", no_wrap=not wraps)
    for row in t.rows:
        table.add_row(*row)
    if t.note:
        table.caption = t.note
        table.caption_justify = "left"
    return table


def print_report(report: dict, console: Console | None = None) -> None:
    console = console or Console()
    gaps = measurement.measurement_lines(report)
    if gaps:
        console.print(f"[bold red]{gaps[0]}[/bold red]", highlight=False)
        for line in gaps[1:]:
            console.print(line, style="red", markup=False, highlight=False)
    run_line = sections.run_line(report)
    if run_line:
        console.print(f"[bold]Run[/bold] {run_line}", highlight=False)
        console.print(f"[dim]run directory {report['run'].get('run_dir', '')}[/dim]")
    for make in sections.TABLES_BEFORE_STEPS:
        t = make(report)
        if t:
            console.print(rich_table(t))
    quirks = sections.counters_line(report)
    if quirks:
        console.print(f"[dim]{quirks}[/dim]", highlight=False)
    no_device = sections.no_device_line(report)
    if no_device:
        console.print(f"[dim]{no_device}[/dim]", highlight=False)
    for line in sections.steps_lines(report):
        console.print(f"[bold]Steps[/bold] {line}", highlight=False)
    sweep = sections.batch_sweep_line(report)
    if sweep:
        console.print(f"[bold]Batch sweep[/bold] {sweep}", highlight=False)
    cost = measurement.tool_cost_line(report)
    if cost:
        console.print(f"[dim]{cost}[/dim]", highlight=False)
    for make in sections.TABLES_AFTER_STEPS:
        t = make(report)
        if t:
            console.print(rich_table(t))
    print_depth(report, console)
    print_findings(report, console)
    lint_lines = lint_section.unconfirmed_lines(report)
    if lint_lines:
        console.print(f"[bold]Lint[/bold]: {lint_lines[0]}", highlight=False)
        for line in lint_lines[1:]:
            console.print(f"   {line}", markup=False, highlight=False)


def print_depth(report: dict, console: Console) -> None:
    """The per-step breakdown, kernel efficiency, critical path, memory and graphs
    (render/depth.py); names from the trace print as plain text."""
    t = depth.step_breakdown_table(report)
    if t:
        console.print(rich_table(t))
    for title, lines in depth.sections(report):
        console.print(f"[bold]{title}[/bold]", highlight=False)
        for line in lines:
            console.print(f"   {line}", markup=False, highlight=False)


def print_findings(report: dict, console: Console) -> None:
    views = sections.findings_views(report)
    if not views:
        console.print(f"[bold]Findings[/bold]: {measurement.no_findings_line(report)}")
        return
    console.print(f"[bold]Findings[/bold] ({len(views)}: those that change results first, "
                  "then the largest possible saving)")
    together = sections.avoidable_line(report)
    if together:
        console.print(together, markup=False, highlight=False)
    for v in views:
        head = Text()
        head.append(f"{v.rank}. ", style="bold")
        head.append(f"[{v.verdict}] ", style=VERDICT_STYLE.get(v.verdict, ""))
        head.append(f"{v.code}: ", style="bold")
        head.append(v.title)
        console.print(head)
        console.print(f"   saving: {v.saving}")
        for w in v.where:
            console.print(f"   where:  {w}", markup=False, highlight=False)
        for s in lint_section.also_in_source((report.get("findings") or [])[v.rank - 1]):
            console.print(f"   also visible in source: {s}", markup=False, highlight=False)
        if v.evidence:
            console.print("   evidence: " + "; ".join(v.evidence), markup=False,
                          highlight=False)
        if v.action:
            console.print(f"   fix:    {v.action}", markup=False, highlight=False)
    console.print("`fastenough explain CODE`: what a finding means, how to fix it",
                  markup=False, highlight=False)
