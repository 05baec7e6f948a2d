"""Terminal (rich) and Markdown views of a fastenough.diff/1 document. Both are
built from the same render.table.Table rows, but for the trace table: the terminal
one fits the width (figures whole, the name takes the rest, cut in the middle,
shapes or the device kind on a dim second line), the Markdown one keeps names
whole. Kernel names are shortened here only (the JSON keeps them whole)."""

from __future__ import annotations

import re

from fastenough.render.table import Table
from fastenough.render.units import fmt_bytes, fmt_ns, fmt_num, fmt_share, shorten


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
        what = {"run": "run directory", "report": "report"}.get(s["kind"], "traces")
        lines.append(f"{key.upper()}: {s['path']} ({what}, {len(s['traces'])} trace file(s))")
    return lines


def run_tables(run: dict) -> tuple[list[Table], str | None]:
    phases = Table("Phases (host time, lowest rank)", ["phase", "A", "B", "B/A", "change"],
                   [[p["name"], fmt_ns(p["a"]), fmt_ns(p["b"]), _ratio(p["ratio"]),
                     _signed_ns(p["delta_ns"])] for p in run["phases"]], right={1, 2, 3, 4})
    figures = [
        ("steady steps/s", run["throughput"]["steady_steps_per_s"], "num"),
        ("steady items/s", run["throughput"]["items_per_s"], "num"),
        ("steady tokens/s", run["throughput"]["tokens_per_s"], "num"),
        ("steady step median", run["steady_step_median_ns"], "ns"),
        ("steady time per item", run.get("steady_time_per_item_ns") or {"a": None, "b": None,
                                                                         "ratio": None}, "ns"),
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
    tables = [phases, steady] if run["phases"] else [steady]
    changed = [f for f in run["findings"] if f["status"] != "same"]
    same = len(run["findings"]) - len(changed)
    if not changed:
        # No empty table drawn for findings that did not change: a line says so.
        return tables, (f"Findings: none changed; {same} the same in both" if same
                        else "Findings: none in either run")
    tables.append(Table(
        "Findings", ["", "code", "where", "saving/step A", "saving/step B"],
        [[f["status"], f["code"], _short_location(f["location"]), fmt_ns(f["saving_per_step_ns_a"]),
          fmt_ns(f["saving_per_step_ns_b"])] for f in changed],
        note=f"{same} finding(s) the same in both" if same else "", right={3, 4}))
    return tables, None


def _short_location(location: str | None) -> str:
    """'/long/path/to/workload.py:156' -> 'workload.py:156' (the JSON keeps the whole path)."""
    if not location:
        return "-"
    head, _, tail = location.rpartition("/")
    return tail if head and ".py" in tail else location


def middle_ellipsis(s: str, width: int) -> str:
    """s cut in the middle to `width` characters, so that both the family and the
    tail of a long name stay visible ('at::native::vectori…har*, 2> >')."""
    if len(s) <= width:
        return s
    if width < 2:
        return s[:width]
    head = (width - 1) * 2 // 3
    return s[:head] + "…" + s[len(s) - (width - 1 - head):]


def _cut(s: str, width: int) -> str:
    return s if len(s) <= width else s[:max(width - 1, 0)] + "…"


def _shapes(dims: list[str], width: int) -> str:
    """'[[8, 64], [64]]', or the first of several with how many more."""
    if not dims:
        return "no shapes"
    more = f" (+{len(dims) - 1})" if len(dims) > 1 else ""
    return _cut(dims[0], max(width - len(more), 8)) + more


def _detail_lines(r: dict, width: int) -> list[str]:
    """Under the name: the op's input shapes (A's and B's on a line each when they
    changed), or the device row's kind (kernel, memcpy, memset)."""
    if r["kind"] != "cpu_op":
        return [r["kind"]]
    if r.get("shapes_changed"):
        return [f"A {_shapes(r['input_dims_a'], width - 2)}",
                f"B {_shapes(r['input_dims_b'], width - 2)}"]
    dims = r["input_dims_a"] or r["input_dims_b"]
    return [_shapes(dims, width)] if dims else []


def _md_shapes(r: dict) -> str:
    if r["kind"] != "cpu_op":
        return ""
    if r.get("shapes_changed"):
        return f"{_shapes(r['input_dims_a'], 120)} → {_shapes(r['input_dims_b'], 120)}"
    dims = r["input_dims_a"] or r["input_dims_b"]
    return _shapes(dims, 120) if dims else ""


def row_mark(r: dict) -> str:
    if r["status"] == "changed":
        return "~"
    if r.get("entirely"):
        return "gone" if r["status"] == "removed" else "new"
    return "-" if r["status"] == "removed" else "+"


def view_rows(trace: dict) -> list[dict]:
    """The rows as the views list them: ops gone entirely first (what really
    disappeared, e.g. the host syncs), then the rest by the size of the change."""
    rows = trace["rows"]
    gone = [r for r in rows if r["status"] == "removed" and r.get("entirely")]
    return gone + [r for r in rows if not (r["status"] == "removed" and r.get("entirely"))]


TRACE_HEADER = ["", "name, input shapes", "calls A → B", "time A", "time B", "change"]
TRACE_HEADER_PER_ITEM = ["", "name, input shapes", "calls A → B", "A/item", "B/item", "change"]


def _trace_header(trace: dict) -> list[str]:
    return TRACE_HEADER_PER_ITEM if trace.get("per_item") else TRACE_HEADER


def _trace_figures(r: dict, per_item: bool) -> list[str]:
    a, b = r["a"] or {}, r["b"] or {}
    key, delta = ("time_per_item_ns", "delta_time_per_item_ns") if per_item else \
        ("time_ns", "delta_time_ns")
    return [f"{_calls(a.get('calls'))} → {_calls(b.get('calls'))}", fmt_ns(a.get(key)),
            fmt_ns(b.get(key)), _signed_ns(r[delta])]


def trace_title(trace: dict) -> str:
    steps = trace["steady_steps"]
    if trace["basis"] != "per_steady_step":
        basis = "totals over each trace (a side has no ProfilerStep windows)"
    elif trace.get("per_item"):
        pi = trace["per_item"]
        basis = (f"per item (A {fmt_num(pi['items_per_step_a'], 0)}, "
                 f"B {fmt_num(pi['items_per_step_b'], 0)} items per step; "
                 f"steady steps A {steps['a']}, B {steps['b']})")
    else:
        basis = f"per steady step (A {steps['a']} steps, B {steps['b']})"
    return f"Trace diff {basis}"


def trace_note(trace: dict, top: int) -> str:
    u = trace["unchanged"]
    th = trace["threshold"]
    note = (f"{u['rows']} unchanged (same calls, time within {th['min_rel'] * 100:g}% or "
            f"{fmt_ns(th['min_abs_ns'])}): A {fmt_ns(u['a_time_ns'])}, B {fmt_ns(u['b_time_ns'])}")
    if len(trace["rows"]) > top:
        note += f"; {len(trace['rows']) - top} more changed row(s) (--top)"
    note += ("; gone (listed first) / new: no row of that name on the other side, -/+: "
             "shapes only one side ran, ~: changed; CPU ops at every level, inclusive time")
    if trace.get("per_item"):
        note += "; calls per step, times per item"
    return note


def trace_table(trace: dict, top: int, name_width: int = 100) -> Table:
    """The Markdown view: a kind column, names whole (kernels without their
    parameter list, cut in the middle past name_width), shapes after the name."""
    per_item = bool(trace.get("per_item"))
    rows = []
    for r in view_rows(trace)[:top]:
        name = r["name"] if r["kind"] == "cpu_op" else short_kernel_name(r["name"], name_width)
        shapes = _md_shapes(r)
        rows.append([row_mark(r), r["kind"], f"{name} {shapes}" if shapes else name,
                     *_trace_figures(r, per_item)])
    h = _trace_header(trace)
    header = [h[0], "kind", *h[1:]]
    return Table(trace_title(trace), header, rows, note=trace_note(trace, top),
                 right={3, 4, 5, 6})


def print_trace_table(trace: dict, top: int, console) -> None:
    """The terminal view: the figures keep their width, the name takes the rest
    of the line (cut in the middle when longer; the JSON keeps it whole), and
    dim lines under it hold the shapes (A's and B's when they changed) or the
    device kind."""
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    from fastenough.render.escape import terminal_text
    from fastenough.visible import visible

    per_item = bool(trace.get("per_item"))
    shown = view_rows(trace)[:top]
    figures = [[row_mark(r), *_trace_figures(r, per_item)] for r in shown]
    header = _trace_header(trace)
    fixed = [max([len(h)] + [len(f[i]) for f in figures])
             for i, h in enumerate(["", *header[2:]])]
    # Columns are two spaces apart (collapsed padding).
    name_w = max(16, console.width - sum(fixed) - 2 * len(header) + 2)
    table = RichTable(title=terminal_text(trace_title(trace)), title_justify="left",
                      title_style="bold", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
                      show_edge=False, collapse_padding=True, expand=False)
    for i, h in enumerate(header):
        table.add_column(terminal_text(h), justify="right" if i >= 2 else "left", no_wrap=True,
                         overflow="ellipsis", max_width=name_w if i == 1 else None)
    for r, f in zip(shown, figures, strict=True):
        name = r["name"] if r["kind"] == "cpu_op" else short_kernel_name(r["name"], 10_000)
        cell = Text(visible(middle_ellipsis(name, name_w)))
        for line in _detail_lines(r, name_w):
            cell.append("\n" + visible(line), style="dim")
        style = "bold red" if f[0] == "gone" else ""
        table.add_row(terminal_text(f[0], style), cell, *(terminal_text(x) for x in f[1:]))
    table.caption = terminal_text(trace_note(trace, top))
    table.caption_justify = "left"
    console.print(table)


def kind_totals_table(trace: dict) -> Table:
    def ratio(a, b):
        return _ratio(b / a if a else None)

    if trace.get("per_item"):
        rows = [[k, fmt_ns(t["a_time_ns"]), fmt_ns(t["b_time_ns"]),
                 fmt_ns(t["a_time_per_item_ns"]), fmt_ns(t["b_time_per_item_ns"]),
                 ratio(t["a_time_per_item_ns"], t["b_time_per_item_ns"])]
                for k, t in trace["totals"].items()]
        return Table("Trace totals by kind, per step and per item",
                     ["kind", "A/step", "B/step", "A/item", "B/item", "B/A per item"], rows,
                     right={1, 2, 3, 4, 5})
    rows = [[k, fmt_ns(t["a_time_ns"]), fmt_ns(t["b_time_ns"]),
             ratio(t["a_time_ns"], t["b_time_ns"])] for k, t in trace["totals"].items()]
    return Table("Trace totals by kind", ["kind", "time A", "time B", "B/A"], rows, right={1, 2, 3})


def _roof_side(side: dict | None) -> tuple[str, str, str]:
    """(device time, % of its binding roof, the roof) of one side of a roofline pair."""
    if side is None:
        return "-", "-", ""
    roof = side["bound"] or ""
    if roof == "compute" and side["dtype"]:
        roof = f"compute ({side['dtype']})"
    pct = side["pct_of_roof"]
    return fmt_ns(side["device_ns"]), fmt_share(None if pct is None else pct / 100), roof


def roofline_table(trace: dict, top: int) -> Table | None:
    """Each hot (op, shapes) of either side with the % of its binding roof on each:
    the same time on two devices, or an op against the one that replaced it, reads
    against what each device can do (docs/roofline.md)."""
    pairs = trace.get("roofline") or []
    if not pairs:
        return None
    body = []
    for p in pairs[:top]:
        at, pa, ra = _roof_side(p["a"])
        bt, pb, rb = _roof_side(p["b"])
        roof = ra if ra == rb or not rb else rb if not ra else f"{ra} / {rb}"
        body.append([shorten(p["op"], 40), shorten(p["input_dims"].replace(" ", ""), 36),
                     at, pa, bt, pb, roof or "-"])
    devices = []
    for key in ("a", "b"):
        names = sorted({p[key]["device"] for p in pairs[:top] if p[key] and p[key]["device"]})
        devices.append(f"{key.upper()} on {', '.join(names) if names else 'no known device'}")
    note = ("of roof: the time at the device's roof over the op's device time, on the roof "
            "its bound names (100% = at the roof); " + "; ".join(devices)
            + " ('-': no peaks, or the side has no such op; all calls, whatever the basis)")
    return Table("How close to the roof, per op", ["op", "shapes", "A time", "A of roof",
                                                   "B time", "B of roof", "roof"],
                 body, note=note, right={2, 3, 4, 5})


def gate_lines(gate: dict) -> list[tuple[str, str]]:
    """(text, style) lines of the regression gate: the verdict, each side's figures,
    the protocol differences that did not block it."""
    style = {"regression": "bold red", "ok": "bold green"}.get(gate["status"], "bold yellow")
    lines = [(f"Regression gate (--max-regression {gate['max_regression_pct']:g}%): "
              f"{gate['verdict']}", style)]
    for key in ("a", "b"):
        s = gate[key]
        if s["median_ns"] is None:
            continue
        lines.append((f"  {key.upper()}: median {fmt_ns(s['median_ns'])} per {gate['unit']} over "
                      f"{s['steady_steps']} steady steps (from {s['source']})", ""))
    for c in gate["protocol_changes"]:
        if not c["blocking"]:
            lines.append((f"  also differs (not blocking): {c['field']}: A {c['a']}, B {c['b']}",
                          "yellow"))
    return lines


def tables(doc: dict) -> tuple[list[Table], str | None]:
    """The tables both views share (the trace table differs: see trace_table and
    print_trace_table), and the line that stands for the findings' table when no
    finding changed."""
    out, findings_line = run_tables(doc["run"]) if doc["run"] else ([], None)
    if doc["trace"]:
        out.append(kind_totals_table(doc["trace"]))
    return out, findings_line


def _roofline(doc: dict, top: int) -> Table | None:
    return roofline_table(doc["trace"], top) if doc["trace"] else None


# Columns that may wrap in the terminal (names, titles, places); the figures
# never do, so a narrow terminal folds the text and keeps the numbers readable.
_WRAPPING = {"title", "where", "phase", ""}


def _rich_table(t: Table):
    from fastenough.render.terminal import rich_table

    return rich_table(t, wrapping=_WRAPPING)


def print_terminal(doc: dict, top: int, console=None) -> None:
    from rich.console import Console

    from fastenough.render.escape import terminal_line, terminal_text

    console = console or Console()
    for line in sides_lines(doc):
        console.print(terminal_text(line), highlight=False)
    if doc.get("gate"):
        for text, style in gate_lines(doc["gate"]):
            console.print(terminal_line((text, style)), highlight=False)
    for note in doc["notes"]:
        console.print(terminal_text(note, "yellow"), highlight=False)
    shown, findings_line = tables(doc)
    for t in shown:
        console.print(_rich_table(t))
    if findings_line:
        console.print(findings_line, highlight=False)
    if doc["trace"]:
        print_trace_table(doc["trace"], top, console)
    roof = _roofline(doc, top)
    if roof is not None:
        console.print(_rich_table(roof))


def markdown(doc: dict, top: int) -> str:
    from fastenough.render.markdown import _escape, _table

    parts = ["# fastenough diff", ""]
    lines = sides_lines(doc)
    if doc.get("gate"):
        lines += [text.strip() for text, _ in gate_lines(doc["gate"])]
    parts += [f"- {_escape(line)}" for line in lines + doc["notes"]]
    parts.append("")
    text = "\n".join(parts) + "\n"
    shown, findings_line = tables(doc)
    for t in shown:
        text += _table(t, level="##")
    if findings_line:
        text += f"{findings_line}\n\n"
    if doc["trace"]:
        text += _table(trace_table(doc["trace"], top), level="##")
    roof = _roofline(doc, top)
    if roof is not None:
        text += _table(roof, level="##")
    return text
