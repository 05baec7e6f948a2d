"""Terminal report (rich): the same sections as the Markdown report."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable

from fastenough.render import depth, lint_section, measurement, sections
from fastenough.render.escape import terminal_line, terminal_text

VERDICT_STYLE = {
    "avoidable": "bold red",
    "bounded": "yellow",
    "insufficient-evidence": "cyan",
}


def rich_table(t: sections.Table, wrapping: set[str] | None = None) -> RichTable:
    """A sections.Table for rich. `wrapping`: the header names of the only columns that
    may fold (the others keep one line, cut with an ellipsis); None: every column folds."""
    # Every string is a Text: a cell never reaches rich's markup parser.
    table = RichTable(title=terminal_text(t.title), title_justify="left", title_style="bold",
                      expand=False)
    for i, h in enumerate(t.header):
        wraps = wrapping is None or (h in wrapping and i > 0)
        table.add_column(terminal_text(h), justify="right" if i in t.right else "left",
                         overflow="fold" if wraps else "ellipsis", no_wrap=not wraps)
    for row in t.rows:
        table.add_row(*(terminal_text(c) for c in row))
    if t.note:
        table.caption = terminal_text(t.note)
        table.caption_justify = "left"
    return table


def print_report(report: dict, console: Console | None = None) -> None:
    console = console or Console()

    def say(*parts: object) -> None:  # parts as terminal_line takes them
        console.print(terminal_line(*parts), highlight=False)

    gaps = measurement.measurement_lines(report)
    if gaps:
        say((gaps[0], "bold red"))
        for line in gaps[1:]:
            say((line, "red"))
    run_line = sections.run_line(report)
    if run_line:
        say(("Run", "bold"), " ", run_line)
        say((f"run directory {report['run'].get('run_dir', '')}", "dim"))
    for make in sections.TABLES_BEFORE_STEPS:
        t = make(report)
        if t:
            console.print(rich_table(t))
    quirks = sections.counters_line(report)
    if quirks:
        say((quirks, "dim"))
    no_device = sections.no_device_line(report)
    if no_device:
        say((no_device, "dim"))
    for line in sections.steps_lines(report):
        say(("Steps", "bold"), " ", line)
    sweep = sections.batch_sweep_line(report)
    if sweep:
        say(("Batch sweep", "bold"), " ", sweep)
    cost = measurement.tool_cost_line(report)
    if cost:
        say((cost, "dim"))
    for make in sections.TABLES_AFTER_STEPS:
        t = make(report)
        if t:
            console.print(rich_table(t))
    print_depth(report, console)
    print_findings(report, console)
    lint_lines = lint_section.unconfirmed_lines(report)
    if lint_lines:
        say(("Lint", "bold"), ": ", lint_lines[0])
        for line in lint_lines[1:]:
            say("   ", line)


def print_depth(report: dict, console: Console) -> None:
    """The per-step breakdown, kernel efficiency, critical path, memory and graphs
    (render/depth.py); names from the trace print as plain text."""
    t = depth.step_breakdown_table(report)
    if t:
        console.print(rich_table(t))
    for title, lines in depth.sections(report):
        console.print(terminal_line((title, "bold")), highlight=False)
        for line in lines:
            console.print(terminal_line(f"   {line}"), highlight=False)


def print_findings(report: dict, console: Console) -> None:
    def say(*parts: object) -> None:
        console.print(terminal_line(*parts), highlight=False)

    views = sections.findings_views(report)
    if not views:
        say(("Findings", "bold"), ": ", measurement.no_findings_line(report))
        return
    say(("Findings", "bold"), f" ({len(views)}: those that change results first, "
        "then the largest possible saving)")
    together = sections.avoidable_line(report)
    if together:
        say(together)
    for v in views:
        say((f"{v.rank}. ", "bold"), (f"[{v.verdict}] ", VERDICT_STYLE.get(v.verdict, "")),
            (f"{v.code}: ", "bold"), v.title)
        say(f"   saving: {v.saving}")
        for w in v.where:
            say(f"   where:  {w}")
        for s in lint_section.also_in_source((report.get("findings") or [])[v.rank - 1]):
            say(f"   also visible in source: {s}")
        if v.evidence:
            say("   evidence: " + "; ".join(v.evidence))
        if v.action:
            say(f"   fix:    {v.action}")
    say("`fastenough explain CODE`: what a finding means, how to fix it")
