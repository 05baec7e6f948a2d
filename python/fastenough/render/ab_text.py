"""`fastenough ab` in the terminal: the sides side by side, then the ratio, the
protocol changes, the outputs and the verdict (the last line)."""

from __future__ import annotations

from fastenough.ab.sides import Side
from fastenough.render.units import fmt_bytes, fmt_ns


def _median(values):
    from fastenough import _core

    good = [float(v) for v in values if isinstance(v, (int, float))]
    return _core.median(good) if good else None


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _row(label: str, a: str, b: str) -> str:
    return f"  {label:<22} {a:>22} {b:>22}\n"


def _figure(runs: list[dict], key: str, fmt) -> str:
    m = _median(r.get(key) for r in runs)
    if m is None:
        return "-"
    n = sum(1 for r in runs if isinstance(r.get(key), (int, float)))
    return f"{fmt(m)}" + (f" (median of {n})" if n > 1 else "")


def outputs_lines(outputs: dict | None) -> list[str]:
    if not outputs:
        return []
    verdict = outputs.get("verdict")
    if verdict == "not compared":
        return [f"outputs: not compared ({outputs.get('why')})"]
    summary = outputs.get("summary") or {}
    parts = [f"outputs (A1 vs B1, fastenough compare): {verdict}"]
    c = outputs.get("counts")
    if isinstance(c, dict) and "paired" in c:
        # The counts `fastenough compare` prints: "within-tolerance" alone does
        # not say whether 1 key of 1000 or all of them moved.
        counts = (f"{c['paired']} keys paired: {c.get('bitwise_equal', 0)} bitwise equal, "
                  f"{c.get('within_tolerance', 0)} within tolerance, {c.get('differs', 0)} "
                  "differ")
        if c.get("missing") or c.get("extra"):
            counts += f"; {c.get('missing', 0)} only in A, {c.get('extra', 0)} only in B"
        parts.append(counts)
    else:
        keys = summary.get("keys") or summary.get("compared")
        if keys is not None:
            parts.append(f"{keys} key(s)")
    out = ["; ".join(parts)]
    for w in (outputs.get("worst") or [])[:5]:
        key = w.get("key")
        bits = [f"{k} {w[k]:.3g}" for k in ("max_abs", "max_rel")
                if isinstance(w.get(k), (int, float))]
        if isinstance(w.get("max_ulp"), (int, float)):
            bits.append(f"max_ulp {w['max_ulp']}")
        if w.get("beyond_tolerance"):
            bits.append(f"{w['beyond_tolerance']} beyond tolerance")
        if w.get("status") and w.get("status") not in ("equal", "within"):
            bits.append(str(w["status"]))
        out.append(f"  {key}: " + ", ".join(bits))
    for k in ("missing", "extra"):
        if outputs.get(k):
            out.append(f"  {k} in B: " + ", ".join(map(str, outputs[k][:5])))
    return out


def figure_rows(doc: dict) -> list[tuple[str, str, str]]:
    """(figure, A's, B's): medians over each side's runs; rows neither side has are left out."""
    a, b = doc["sides"]["A"], doc["sides"]["B"]
    unit = doc.get("unit") or "items/s"
    key = "items_per_s" if unit == "items/s" else "steps_per_s"
    rows = []
    for label, k, fmt in ((f"steady {unit}", key, _rate),
                          ("steady step (median)", "step_median_ns", fmt_ns),
                          ("cold start", "cold_start_ns", fmt_ns),
                          ("whole run", "wall_ns", fmt_ns),
                          ("peak RSS", "peak_rss_bytes", fmt_bytes),
                          ("peak device memory", "peak_device_bytes", fmt_bytes)):
        va, vb = _figure(a["runs"], k, fmt), _figure(b["runs"], k, fmt)
        if va != "-" or vb != "-":
            rows.append((label, va, vb))
    rows.append(("measurement", _measurement("A", a["runs"]), _measurement("B", b["runs"])))
    return rows


def _measurement(side: str, runs: list[dict]) -> str:
    """"complete" when every run of the side is; else which run is which:
    "complete (A1 A3), partial (A2)"."""
    by_status: dict[str, list[str]] = {}
    for i, r in enumerate(runs, 1):
        by_status.setdefault(r.get("measurement", "?"), []).append(f"{side}{i}")
    if len(by_status) == 1:
        return next(iter(by_status))
    return ", ".join(f"{status} ({' '.join(names)})" for status, names in sorted(by_status.items()))


def ratio_line(doc: dict) -> str | None:
    r = doc.get("ratio")
    if not r or r.get("ratio") is None:
        return None
    low = "-" if r["low"] is None else f"{r['low']:.3f}"
    high = "-" if r["high"] is None else f"{r['high']:.3f}"
    return (f"B/A steady {doc.get('unit')}: {r['ratio']:.3f} ({r['confidence']:.0%} interval "
            f"{low} .. {high}, {r['pairs']} pairs, "
            f"{r.get('method', 't interval of the paired log ratios')})")


def render_text(doc: dict) -> str:
    a, b = doc["sides"]["A"], doc["sides"]["B"]
    out = [f"A: {Side('A', a['command'], a['env']).label()}\n",
           f"B: {Side('B', b['command'], b['env']).label()}\n",
           f"{len(doc['order'])} runs in the order {' '.join(doc['order'])}; run directories "
           f"under {doc['dir']}\n\n"]
    out.append(_row("", "A", "B"))
    for label, va, vb in figure_rows(doc):
        out.append(_row(label, va, vb))
    out.append("\n")
    ratio = ratio_line(doc)
    if ratio:
        out.append(ratio + "\n")
    design = doc.get("design")
    if design:
        out.append(design["text"] + "\n")
    for n in doc.get("noise") or []:
        out.append(f"noise: {n}\n")
    for n in doc.get("left_out") or []:
        out.append(f"left out: {n}\n")
    for c in doc.get("protocol_changes") or []:
        out.append(f"protocol change: {c['field']}: {c['a']} -> {c['b']}\n")
    out += [line + "\n" for line in outputs_lines(doc.get("outputs"))]
    f = doc.get("failed")
    if f:
        out.append(f"run {f['run']} failed with exit status {f['exit_status']}: its stderr is "
                   f"{f['stderr']}, its run directory {f['run_dir']}\n")
    out.append(f"verdict: {doc['verdict']}\n")
    return "".join(out)
