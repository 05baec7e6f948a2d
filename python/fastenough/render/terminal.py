"""Terminal report (rich): the same sections as the Markdown report."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable

from fastenough.render.escape import terminal_line, terminal_text
from fastenough.render.table import Table
from fastenough.render.view.build import build_view
from fastenough.render.view.model import ReportView
from fastenough.report.model import Report

VERDICT_STYLE = {
    "avoidable": "bold red",
    "bounded": "yellow",
    "insufficient-evidence": "cyan",
}


def rich_table(t: Table, wrapping: set[str] | None = None) -> RichTable:
    """A Table for rich. `wrapping`: the header names of the only columns that
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


def hanging(console: Console, label: str | tuple, *parts: object, indent: int | None = None
            ) -> None:
    """`label` then the text; the lines the text wraps to start under the text (or
    `indent` columns in), never at column 0: "   evidence: a = 1; ..." keeps its
    indent when it folds."""
    head = terminal_line(label)
    pad = len(head.plain) if indent is None else indent
    body = terminal_line(*parts)
    width = max(console.width - pad, 20)
    first = True
    for line in body.wrap(console, width, overflow="fold") or [body]:
        line.rstrip()
        console.print(terminal_line(head if first else " " * pad, line), highlight=False,
                      soft_wrap=True)
        first = False


def print_report(report: Report, console: Console | None = None) -> None:
    """The terminal report of a typed Report (fastenough.report.load); where the
    view is built already (a run), print_view formats it."""
    print_view(build_view(report), console)


def print_view(view: ReportView, console: Console | None = None) -> None:
    console = console or Console()

    def say(*parts: object) -> None:  # parts as terminal_line takes them
        console.print(terminal_line(*parts), highlight=False)

    m = view.measurement
    if m.headline:
        say((m.headline, "bold red"))
        for reason in m.reasons:
            say((f"- {reason}", "red"))
    elif m.complete_line:
        say((m.complete_line, "green"))
    if view.run:
        say(("Run", "bold"), " ", f"`{view.run.command}` {view.run.ending}")
        say((f"run directory {view.run.run_dir}", "dim"))
        if view.run.in_job:
            say((view.run.in_job, "dim"))
    for t in (view.inputs, view.counters, view.phases):
        if t:
            console.print(rich_table(t))
    if view.quirks:
        say((view.quirks, "dim"))
    if view.no_device:
        say((view.no_device, "dim"))
    for line in view.steps:
        say(("Steps", "bold"), " ", line)
    if view.batch_sweep:
        say(("Batch sweep", "bold"), " ", view.batch_sweep)
    if m.tool_cost:
        say((m.tool_cost, "dim"))
    for t in (view.devices, view.idle, view.top_kernels, view.top_ops, view.roofline,
              view.roofline_worst, view.recorded_outputs):
        if t:
            console.print(rich_table(t))
    print_depth(view, console)
    print_findings(view, console)
    if view.repeatability:
        say(("Repeatability", "bold"), ": ", view.repeatability[0])
        for line in view.repeatability[1:]:
            hanging(console, "   ", line)
    if view.lint:
        say(("Lint", "bold"), ": ", view.lint.head)
        for line in view.lint.entries:
            hanging(console, "   ", line)


def print_depth(view: ReportView, console: Console) -> None:
    """The per-step breakdown, kernel efficiency, critical path, memory and graphs
    (render/depth.py); names from the trace print as plain text."""
    if view.step_breakdown:
        console.print(rich_table(view.step_breakdown))
    for title, lines in view.depth:
        console.print(terminal_line((title, "bold")), highlight=False)
        for line in lines:
            hanging(console, "   ", line)


def print_findings(view: ReportView, console: Console) -> None:
    def say(*parts: object) -> None:
        console.print(terminal_line(*parts), highlight=False)

    views = view.findings
    if not views:
        say(("Findings", "bold"), ": ", view.no_findings)
        return
    say(("Findings", "bold"), f" ({len(views)}: those that change results first, "
        "then the largest possible saving)")
    if view.avoidable:
        say(view.avoidable)
    for v in views:
        hanging(console, (f"{v.rank}. ", "bold"),
                (f"[{v.verdict}] ", VERDICT_STYLE.get(v.verdict, "")), (f"{v.code}: ", "bold"),
                v.title, indent=3)
        hanging(console, "   saving: ", v.saving)
        for w in v.where:
            hanging(console, "   where:  ", w)
        for s in v.also_in_source:
            hanging(console, "   also visible in source: ", s)
        if v.evidence:
            hanging(console, "   evidence: ", "; ".join(v.evidence))
        if v.action:
            hanging(console, "   fix:    ", v.action)
    say("`fastenough explain CODE`: what a finding means, how to fix it")
