"""ab.html: the page of a `fastenough ab` (its fastenough.ab/1 document), beside
ab.json in the A/B's directory. Self-contained like report.html: the sides
side by side, the per-pair ratios and the interval on one axis, the protocol
changes, the outputs' agreement, and the verdict at the top."""

from __future__ import annotations

from fastenough.ab.sides import Side
from fastenough.render.ab_text import explained_line, figure_rows, outputs_lines, ratio_line
from fastenough.render.html import svg
from fastenough.render.html.page import document, section, table_html
from fastenough.render.html.svg import esc
from fastenough.render.table import Table


def _pair_ratios(doc: dict) -> list[float]:
    ra, rb = doc["sides"]["A"]["runs"], doc["sides"]["B"]["runs"]
    if (doc.get("timing") or {}).get("ratio_of") == "timing-only pairs":
        # The ratio's pairs only (the full agent's pairs are left out of it).
        both = [(x, y) for x, y in zip(ra, rb, strict=False)
                if x.get("timing_only") and y.get("timing_only")]
        ra, rb = [x for x, _ in both], [y for _, y in both]
    if doc.get("unit") == "runs/s":  # unlike steps: A's whole run time over B's
        a = [r.get("wall_ns") for r in ra]
        b = [r.get("wall_ns") for r in rb]
        return [x / y for x, y in zip(a, b, strict=False) if x and y]
    key = "items_per_s" if doc.get("unit") == "items/s" else "steps_per_s"
    a = [r.get(key) for r in ra]
    b = [r.get(key) for r in rb]
    return [y / x for x, y in zip(a, b, strict=False) if x and y]


def ratio_chart(doc: dict) -> str:
    """The ratio B/A of each pair (dots), their geometric mean (a mark) and its interval
    (a band) on a log axis that always holds 1 (no difference)."""
    r = doc.get("ratio") or {}
    pairs = _pair_ratios(doc)
    if r.get("ratio") is None or not pairs:
        return ""
    values = pairs + [v for v in (r.get("low"), r.get("high"), r["ratio"], 1.0) if v]
    lo, hi = min(values) / 1.15, max(values) * 1.15
    w, h, left, right = 640, 110, 40, 620
    scale = svg.Scale(lo, hi, left, right, log=True)
    out = [svg.svg_open(w, h, "B/A per pair and its interval",
                        f"ratio {r['ratio']:.3f}, interval {r.get('low')} to {r.get('high')}; "
                        f"{len(pairs)} pairs", "abratio")]
    if r.get("low") and r.get("high"):
        out.append(svg.rect(scale(r["low"]), 30, scale(r["high"]) - scale(r["low"]), 30, "#d6e4ff",
                            tip=f"{r['confidence']:.0%} interval "
                                f"{r['low']:.3f} .. {r['high']:.3f}"))
    out.append(svg.line(scale(1.0), 20, scale(1.0), 70, "axis"))
    out.append(svg.text(scale(1.0), 16, "1 = no difference", "tick", "middle"))
    for i, p in enumerate(pairs):
        out.append(f'<circle cx="{svg.fmt_coord(scale(p))}" cy="45" r="4" fill="#616e7c">'
                   f"<title>pair {i + 1}: {p:.3f}</title></circle>")
    out.append(svg.rect(scale(r["ratio"]) - 1.5, 26, 3, 38, "#c62828",
                        tip=f"ratio (geometric mean) {r['ratio']:.3f}"))
    ticks = [t for t in svg.log_ticks(lo, hi) if lo <= t <= hi] or [lo, hi]
    out.append(svg.x_axis(scale, ticks, 75, lambda v: f"{v:.3g}",
                          title=f"B/A of steady {doc.get('unit')} (log scale; > 1: B faster)"))
    out.append("</svg>")
    return "".join(out)


def ab_to_html(doc: dict) -> str:
    a, b = doc["sides"]["A"], doc["sides"]["B"]
    header = (f'<h1><span class="brand">fastenough</span> ab</h1>'
              f'<p class="verdict"><strong>{esc(doc["verdict"])}</strong></p>'
              f"<p><code>A: {esc(Side('A', a['command'], a['env']).label())}</code><br>"
              f"<code>B: {esc(Side('B', b['command'], b['env']).label())}</code></p>")
    body = []
    rows = figure_rows(doc)
    t = Table("Both sides (medians over each side's timing-only runs, where it has any)",
              ["", "A", "B"],
              [list(x) for x in rows], note=f"{len(doc['order'])} runs in the order "
              f"{' '.join(doc['order'])}; run directories under {doc['dir']}", right={1, 2})
    body.append(section("sides", "Both sides", table_html(t, heading=False)))
    ratio = ratio_line(doc)
    noise = "".join(f'<p class="note">noise: {esc(n)}</p>' for n in doc.get("noise") or [])
    if doc.get("unit_why"):
        noise = f'<p class="note">unlike steps: {esc(doc["unit_why"])}</p>' + noise
    if (doc.get("timing") or {}).get("text"):
        noise = f'<p class="note">{esc(doc["timing"]["text"])}</p>' + noise
    if ratio:
        body.append(section("ratio", "B/A", f"<p>{esc(ratio)}</p>{ratio_chart(doc)}{noise}"))
    changes = doc.get("protocol_changes") or []
    pt = Table("Protocol changes", ["field", "A", "B"],
               [[c["field"], str(c["a"]), str(c["b"])] for c in changes])
    body.append(section("protocol", "Protocol changes",
                        table_html(pt, heading=False) if changes else
                        '<p class="empty">None: both sides measured under the same protocol '
                        "(batch, lengths, dtype, versions, device, declared fields).</p>"))
    lines = outputs_lines(doc.get("outputs"))
    if lines:
        items = "".join(f"<li><code>{esc(x.strip())}</code></li>" for x in lines[1:])
        why = "".join(f"<p>{esc(explained_line(e))}</p>"
                      for e in doc.get("outputs_explained") or [])
        body.append(section("outputs", "Outputs", f"<p>{esc(lines[0])}</p>"
                            + (f"<ul>{items}</ul>" if items else "") + why))
    f = doc.get("failed")
    if f:
        body.append(section("failed", "A run failed",
                            f"<p>Run {esc(f['run'])} exited with status {esc(f['exit_status'])}; "
                            f"its stderr: <code>{esc(f['stderr'])}</code></p>"))
    nav = [("sides", "Both sides"), ("ratio", "B/A"), ("protocol", "Protocol"),
           ("outputs", "Outputs")]
    return document("fastenough ab", header, nav, "".join(body),
                    "fastenough ab · schema fastenough.ab/1 (ab.json beside this page)")
