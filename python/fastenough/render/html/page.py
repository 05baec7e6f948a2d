"""The page around the sections: one self-contained HTML file, its CSS inline,
system fonts only, no script and no external request of any kind, so that it
opens offline, from a mail attachment or a CI artifact, as it was written."""

from __future__ import annotations

from fastenough.render.html.svg import esc
from fastenough.render.table import Table

CSS = """
:root { --ink:#1f2933; --muted:#616e7c; --line:#e4e7eb; --soft:#f5f7fa; --accent:#2f80ed;
  --bad:#c62828; --warn:#b7791f; --ok:#2e7d32; --info:#0b6e99; }
* { box-sizing: border-box; }
body { margin:0; color:var(--ink); background:#fff;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "Liberation Sans", sans-serif; }
main, header.top, footer { max-width: 1080px; margin: 0 auto; padding: 0 24px; }
header.top { padding-top: 28px; }
h1 { font-size: 24px; margin: 0 0 4px; letter-spacing: -0.01em; }
h1 .brand { color: var(--accent); }
h2 { font-size: 18px; margin: 36px 0 10px; padding-bottom: 6px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono",
  "Liberation Mono", monospace; font-size: 12.5px; }
.command { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  padding: 6px 10px; display: block; overflow-wrap: anywhere; margin: 8px 0; }
.sub { color: var(--muted); margin: 0; }
nav.toc { margin: 14px 0 0; font-size: 13px; color: var(--muted); }
nav.toc a { color: var(--muted); text-decoration: none; margin-right: 14px; white-space: nowrap; }
nav.toc a:hover { color: var(--accent); }
.banner { border-radius: 8px; padding: 12px 16px; margin: 18px 0 0; }
.banner.incomplete { background: #fdecea; border: 1px solid #f5c2c0; color: #7f1d1d; }
.banner.complete { background: #edf7ee; border: 1px solid #c8e6c9; color: #1b5e20; }
.banner strong { display: block; }
.banner ul { margin: 4px 0 0 18px; padding: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px;
  margin: 20px 0 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: #fff; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: 0.04em; }
.card .value { font-size: 20px; font-weight: 650; margin: 2px 0; overflow-wrap: anywhere; }
.card .detail { color: var(--muted); font-size: 12.5px; }
.card.alert { border-color: #f5c2c0; background: #fdf3f2; }
.card.alert .value { color: var(--bad); }
svg.chart { width: 100%; height: auto; display: block; margin: 6px 0 2px; }
svg.chart text { font-family: inherit; font-size: 12px; fill: var(--ink); }
svg.chart .tick, svg.chart .legend, svg.chart .limit-label { fill: var(--muted); }
svg.chart .axis-title { fill: var(--muted); font-size: 12px; }
svg.chart .axis { stroke: #9aa5b1; stroke-width: 1; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .series { fill: none; stroke-width: 1.8; stroke-linejoin: round; }
svg.chart .legend-swatch { stroke-width: 3; }
svg.chart .band { opacity: 0.13; }
svg.chart .band-label { fill: var(--muted); font-size: 11px; }
svg.chart .phase { stroke: #fff; stroke-width: 1; }
svg.chart .phase-label, svg.chart .part-label { fill: #fff; font-weight: 600; font-size: 12px; }
svg.chart .lane-label { fill: var(--muted); }
svg.chart .limit { stroke: var(--bad); stroke-dasharray: 4 3; stroke-width: 1; }
svg.chart .dot { fill: var(--accent); fill-opacity: 0.75; }
svg.chart .mark-median { stroke: var(--ink); stroke-width: 1.5; }
svg.chart .mark-p { stroke: var(--muted); stroke-dasharray: 3 3; stroke-width: 1; }
svg.chart .mark-label { fill: var(--ink); font-size: 11.5px; }
.legend-row { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12.5px;
  color: var(--muted); margin: 2px 0 0; }
.legend-row .sw { display: inline-block; width: 11px; height: 11px; border-radius: 2px;
  vertical-align: -1px; margin-right: 5px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; font-size: 13px; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
.table-wrap { overflow-x: auto; }
td.name { overflow-wrap: break-word; }
table.record thead { display: none; }
table.record td:first-child { color: var(--muted); width: 170px; white-space: nowrap; }
table.record td { overflow-wrap: anywhere; }
.note { color: var(--muted); font-size: 12.5px; margin: 4px 0 0; }
.finding { border: 1px solid var(--line); border-left: 4px solid var(--muted); border-radius: 8px;
  padding: 12px 16px; margin: 12px 0; }
.finding.avoidable { border-left-color: var(--bad); }
.finding.bounded { border-left-color: var(--warn); }
.finding.insufficient-evidence { border-left-color: var(--info); }
.finding .head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.finding .rank { color: var(--muted); font-weight: 600; }
.finding .code { font-weight: 650; }
.finding .title { margin: 4px 0 8px; font-size: 14.5px; }
.verdict { font-size: 11.5px; font-weight: 600; border-radius: 10px; padding: 1px 8px;
  text-transform: uppercase; letter-spacing: 0.03em; }
.verdict.avoidable { background: #fdecea; color: var(--bad); }
.verdict.bounded { background: #fff4e0; color: var(--warn); }
.verdict.insufficient-evidence { background: #e3f2fd; color: var(--info); }
.saving { display: flex; align-items: center; gap: 10px; margin: 4px 0; }
.saving .bar { flex: 0 0 200px; }
.saving .bar svg { width: 200px; height: 10px; display: block; }
dl.facts { display: grid; grid-template-columns: 90px 1fr; gap: 3px 12px; margin: 8px 0 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
details summary { cursor: pointer; color: var(--muted); }
dl.evidence { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px;
  margin: 6px 0 0; font-size: 12.5px; }
dl.evidence dt { color: var(--muted); font-family: ui-monospace, Menlo, Consolas, monospace; }
dl.evidence dd { margin: 0; font-variant-numeric: tabular-nums; }
.cellbar { width: 80px; height: 8px; display: inline-block; vertical-align: middle; }
td.barcell, th.barcell { width: 96px; padding-left: 0; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.card .value.code { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  font-size: 15px; padding-top: 6px; }
.banner.complete { padding: 8px 16px; }
.banner.complete strong { display: inline; margin-right: 6px; }
.empty { color: var(--muted); font-style: italic; }
footer { color: var(--muted); font-size: 12px; margin-top: 40px; padding-bottom: 30px;
  border-top: 1px solid var(--line); padding-top: 10px; }
@media print { h2 { break-after: avoid; } .finding, svg.chart { break-inside: avoid; } }
"""


def table_html(t: Table, cls: str = "", bars: dict[int, list[float | None]] | None = None,
               heading: bool = True) -> str:
    """A Table as HTML; `bars` adds a small bar after column i's text (share 0..1)."""
    out = []
    if heading:
        out.append(f"<h3>{esc(t.title)}</h3>")
    c = f' class="{cls}"' if cls else ""
    out.append(f'<div class="table-wrap"><table{c}>')
    if any(t.header):
        out.append("<thead><tr>")
        for i, h in enumerate(t.header):
            out.append(f'<th{" class=num" if i in t.right else ""} scope="col">{esc(h)}</th>')
            if bars and i in bars:
                out.append('<th class="barcell"><span class="sr">bar</span></th>')
        out.append("</tr></thead>")
    out.append("<tbody>")
    for r, row in enumerate(t.rows):
        out.append("<tr>")
        for i, cell in enumerate(row):
            klass = "num" if i in t.right else ("name" if i == 0 else "")
            out.append(f'<td class="{klass}">{esc(cell)}</td>' if klass
                       else f"<td>{esc(cell)}</td>")
            if bars and i in bars:
                v = bars[i][r] if r < len(bars[i]) else None
                out.append(f'<td class="barcell">{cell_bar(v) if v is not None else ""}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    if t.note:
        out.append(f'<p class="note">{esc(t.note)}</p>')
    return "".join(out)


def cell_bar(fraction: float, color: str = "#2f80ed") -> str:
    w = max(0.0, min(1.0, fraction)) * 80
    return (f'<svg class="cellbar" viewBox="0 0 80 8" aria-hidden="true">'
            f'<rect width="80" height="8" fill="#eef1f4"/>'
            f'<rect width="{w:.1f}" height="8" fill="{color}"/></svg>')


def section(anchor: str, title: str, body: str) -> str:
    return (f'<section id="{esc(anchor)}" aria-labelledby="{esc(anchor)}-h">'
            f'<h2 id="{esc(anchor)}-h">{esc(title)}</h2>{body}</section>')


def document(title: str, header: str, nav: list[tuple[str, str]], body: str,
             footer: str) -> str:
    links = "".join(f'<a href="#{esc(a)}">{esc(t)}</a>' for a, t in nav)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No request may leave the file: not even a favicon lookup.
        '<link rel="icon" href="data:,">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
        f'<header class="top">{header}<nav class="toc" aria-label="sections">{links}</nav>'
        f"</header><main>{body}</main><footer>{footer}</footer></body></html>\n"
    )
