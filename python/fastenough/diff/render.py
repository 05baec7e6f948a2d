"""Terminal (rich) and Markdown views of a fastenough.diff/1 document. Both are
built from the same sections.Table rows; kernel names are shortened here only
(the JSON keeps them whole)."""

from __future__ import annotations

import re

from fastenough.render.sections import Table
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_num

STATUS_LABEL = {"added": "+ added", "removed": "- removed", "changed": "~ changed"}


def short_kernel_name(name: str, width: int = 70) -> str:
    """'void ns::gemm<float, 128, ...>(Params, int)' -> 'ns::gemm<float, 128, ...>', cut
    in the middle past `width` so that both the family and the tile stay visible."""
    s = re.sub(r"^void\s+", "", name)
    if s.endswith(")") and "(" in s:
        depth = 0
        for i in range(len(s) - 1, -1, -1):  # the parameter list that closes the name
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i] if i > 0 else s
                break
    if len(s) <= width:
        return s
    head = (width - 1) * 2 // 3
    return s[:head] + "…" + s[len(s) - (width - 1 - head):]


def _calls(x) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}" if abs(x - round(x)) < 1e-9 else f"{x:,.2f}"


def _ratio(r) -> str:
    return "-" if r is None else f"{r:.2f}x"


def _signed_ns(ns) -> str:
    if ns is None:
        return "-"
    return ("+" if ns > 0 else "") + fmt_ns(ns) if ns else "0"


def _value(v, unit: str) -> str:
    if unit == "ns":
        return fmt_ns(v)
    if unit == "bytes":
        return fmt_bytes(v)
    if unit == "text":
        return "-" if v is None else str(v)
    return fmt_num(v, 2)


def sides_lines(doc: dict) -> list[str]:
    lines = []
    for key in ("a", "b"):
        s = doc[key]
        what = "run directory" if s["kind"] == "run" else "traces"
        lines.append(f"{key.upper()}: {s['path']} ({what}, {len(s['traces'])} trace file(s))")
    return lines


def run_tables(run: dict) -> list[Table]:
    phases = Table("Phases (host time, lowest rank)", ["phase", "A", "B", "B/A", "change"],
                   [[p["name"], fmt_ns(p["a"]), fmt_ns(p["b"]), _ratio(p["ratio"]),
                     _signed_ns(p["delta_ns"])] for p in run["phases"]], right={1, 2, 3, 4})
    figures = [
        ("steady steps/s", run["throughput"]["steady_steps_per_s"], "num"),
        ("steady items/s", run["throughput"]["items_per_s"], "num"),
        ("steady tokens/s", run["throughput"]["tokens_per_s"], "num"),
        ("steady step median", run["steady_step_median_ns"], "ns"),
        ("steady steps measured", run["steady_steps"], "num"),
        ("peak RSS", run["memory"]["rss_max_bytes"], "bytes"),
        ("peak allocated (device)", run["memory"]["alloc_peak_bytes"], "bytes"),
        ("peak reserved (device)", run["memory"]["reserved_peak_bytes"], "bytes"),
        ("peak device memory used", run["memory"]["device_used_max_bytes"], "bytes"),
        ("measurement", run["measurement"], "text"),
    ]
    steady = Table("Throughput and memory", ["", "A", "B", "B/A"],
                   [[label, _value(p["a"], unit), _value(p["b"], unit), _ratio(p["ratio"])]
                    for label, p, unit in figures if p["a"] is not None or p["b"] is not None],
                   right={1, 2, 3})
    tables = [phases, steady]
    changed = [f for f in run["findings"] if f["status"] != "same"]
    same = len(run["findings"]) - len(changed)
    tables.append(Table(
        "Findings", ["", "code", "where", "saving/step A", "saving/step B"],
        [[f["status"], f["code"], _short_location(f["location"]), fmt_ns(f["saving_per_step_ns_a"]),
          fmt_ns(f["saving_per_step_ns_b"])] for f in changed],
        note=f"{same} finding(s) the same in both" if same else "", right={3, 4}))
    return tables


def _short_location(location: str | None) -> str:
    """'/long/path/to/workload.py:156' -> 'workload.py:156' (the JSON keeps the whole path)."""
    if not location:
        return "-"
    head, _, tail = location.rpartition("/")
    return tail if head and ".py" in tail else location


def trace_table(trace: dict, top: int, name_width: int) -> Table:
    steps = trace["steady_steps"]
    if trace["basis"] == "per_steady_step":
        basis = f"per steady step (A {steps['a']} steps, B {steps['b']})"
    else:
        basis = "totals over each trace (a side has no ProfilerStep windows)"
    rows = []
    for r in trace["rows"][:top]:
        a, b = r["a"] or {}, r["b"] or {}
        name = r["name"] if r["kind"] == "cpu_op" else short_kernel_name(r["name"], name_width)
        dims = r["input_dims"] or ""
        if dims:  # on a line of its own under the name (a space in Markdown)
            name += "\n" + (dims if len(dims) <= 60 else dims[:59] + "…")
        rows.append([STATUS_LABEL[r["status"]], r["kind"], name,
                     f"{_calls(a.get('calls'))} → {_calls(b.get('calls'))}",
                     fmt_ns(a.get("time_ns")), fmt_ns(b.get("time_ns")),
                     _signed_ns(r["delta_time_ns"])])
    u = trace["unchanged"]
    th = trace["threshold"]
    note = (f"{u['rows']} unchanged (same calls, time within {th['min_rel'] * 100:g}% or "
            f"{fmt_ns(th['min_abs_ns'])}): A {fmt_ns(u['a_time_ns'])}, B {fmt_ns(u['b_time_ns'])}")
    if len(trace["rows"]) > top:
        note += f"; {len(trace['rows']) - top} more changed row(s) (--top)"
    note += "; CPU ops at every level, inclusive time"
    return Table(f"Trace diff, {basis}, largest change first",
                 ["", "kind", "name, input shapes", "calls A → B", "time A", "time B", "change"],
                 rows, note=note, right={3, 4, 5, 6})


def kind_totals_table(trace: dict) -> Table:
    rows = [[k, fmt_ns(t["a_time_ns"]), fmt_ns(t["b_time_ns"]),
             _ratio(t["b_time_ns"] / t["a_time_ns"] if t["a_time_ns"] else None)]
            for k, t in trace["totals"].items()]
    return Table("Trace totals by kind", ["kind", "time A", "time B", "B/A"], rows, right={1, 2, 3})


def tables(doc: dict, top: int, name_width: int) -> list[Table]:
    out = run_tables(doc["run"]) if doc["run"] else []
    if doc["trace"]:
        out += [kind_totals_table(doc["trace"]), trace_table(doc["trace"], top, name_width)]
    return out


# Columns that may wrap in the terminal (names, titles, places); the figures
# never do, so a narrow terminal folds the text and keeps the numbers readable.
_WRAPPING = {"name, input shapes", "title", "where", "phase", ""}


def _rich_table(t: Table):
    from fastenough.render.terminal import rich_table

    return rich_table(t, wrapping=_WRAPPING)


def print_terminal(doc: dict, top: int, console=None) -> None:
    from rich.console import Console

    console = console or Console()
    from fastenough.render.escape import terminal_text

    for line in sides_lines(doc):
        console.print(terminal_text(line), highlight=False)
    for note in doc["notes"]:
        console.print(terminal_text(note, "yellow"), highlight=False)
    # Kernel names get what the figures leave of the width (about 80 columns).
    name_width = max(30, min(100, console.width - 80))
    for t in tables(doc, top, name_width=name_width):
        console.print(_rich_table(t))


def markdown(doc: dict, top: int) -> str:
    from fastenough.render.markdown import _escape, _table

    parts = ["# fastenough diff", ""]
    parts += [f"- {_escape(line)}" for line in sides_lines(doc) + doc["notes"]]
    parts.append("")
    text = "\n".join(parts) + "\n"
    for t in tables(doc, top, name_width=100):
        text += _table(t, level="##")
    return text
