"""`fastenough ab` in the terminal: the sides side by side, then the ratio, the
protocol changes, the outputs and the verdict (the last line)."""

from __future__ import annotations

from fastenough.ab.figures import WHOLE_RUN
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


def timed_runs(runs: list[dict]) -> list[dict]:
    """The runs a side's figures are the medians of: its timing-only runs when it
    has any (the first run's agent, with its checks and window, costs the program
    more), else every run."""
    return [r for r in runs if r.get("timing_only")] or runs


def _figure(runs: list[dict], key: str, fmt) -> str:
    runs = timed_runs(runs)
    m = _median(r.get(key) for r in runs)
    if m is None:
        return "-"
    n = sum(1 for r in runs if isinstance(r.get(key), (int, float)))
    return f"{fmt(m)}" + (f" (median of {n})" if n > 1 else "")


def outputs_lines(outputs: dict | None) -> list[str]:
    """The outputs' comparison as logical lines (render_text wraps them at 80
    columns; the HTML page lists them)."""
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
    worst = (outputs.get("worst") or [])[:5]
    for w in worst:
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
    if worst and _figures_sentence(worst[0]):
        out.append("  " + _figures_sentence(worst[0]))
    for k in ("missing", "extra"):
        if outputs.get(k):
            out.append(f"  {k} in B: " + ", ".join(map(str, outputs[k][:5])))
    return out


def _figures_sentence(w: dict) -> str:
    """What the worst key's figures mean, in words: max_rel 502 and max_ulp 2025391065
    say nothing alone."""
    said = []
    if isinstance(w.get("max_abs"), (int, float)):
        said.append(f"differ by up to {w['max_abs']:.3g} (max_abs)")
    rel = w.get("max_rel")
    if isinstance(rel, (int, float)):
        said.append(f"by up to {rel:.3g} times A's own value (max_rel)" if rel >= 1
                    else f"by up to {rel:.2%} of A's own value (max_rel)")
    elif rel == "inf":
        said.append("are non-zero in B where A is exactly 0 (max_rel inf)")
    ulp = w.get("max_ulp")
    if isinstance(ulp, (int, float)):
        said.append(f"are up to {ulp:,} representable numbers apart (max_ulp; rounding "
                    "differences are a few)" if ulp > 16
                    else f"are at most {ulp} representable numbers apart (max_ulp): rounding")
    if not said:
        return ""
    text = f"In words: the elements of {w.get('key')} " + ", ".join(said[:-1]) + \
        (" and " if len(said) > 1 else "") + said[-1] + "."
    big_ulp = isinstance(ulp, (int, float)) and ulp > 1 << 20
    if (isinstance(rel, (int, float)) and rel >= 1) or rel == "inf" or big_ulp:
        text += " Not rounding: the two sides computed different values."
    return text


# The terminal width `ab` writes for; commands and paths are never broken.
WIDTH = 80


def _wrap(text: str, indent: str = "", first: str | None = None) -> list[str]:
    import textwrap

    if not text:
        return []
    first = indent if first is None else first
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=indent + "  ",
                         break_long_words=False, break_on_hyphens=False) or [first + text]


def figure_rows(doc: dict) -> list[tuple[str, str, str]]:
    """(figure, A's, B's): medians over each side's runs; rows neither side has are left out."""
    a, b = doc["sides"]["A"], doc["sides"]["B"]
    unit = doc.get("unit") or "items/s"
    key = "items_per_s" if unit == "items/s" else "steps_per_s"
    # Unlike steps (unit runs/s): steps/s is shown, not compared; the whole run is.
    first = "steps/s (not compared)" if unit == WHOLE_RUN else f"steady {unit}"
    rows = []
    for label, k, fmt in ((first, key, _rate),
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
    """"complete" when every run of the side is (or "partial", ... when all are
    that); else how many are complete: "3 of 4 complete" (measurement_lines names
    the others)."""
    statuses = [r.get("measurement", "?") for r in runs]
    if len(set(statuses)) == 1:
        return statuses[0]
    return f"{statuses.count('complete')} of {len(statuses)} complete"


def measurement_lines(doc: dict) -> list[str]:
    """The runs whose measurement was not complete, by name, when a side mixes
    them: "measurement incomplete in A1 (partial), B1 (partial); the other runs
    are complete"."""
    odd, mixed = [], False
    for side in ("A", "B"):
        runs = doc["sides"][side]["runs"]
        statuses = [r.get("measurement", "?") for r in runs]
        mixed = mixed or len(set(statuses)) > 1
        odd += [f"{side}{i} ({s})" for i, s in enumerate(statuses, 1) if s != "complete"]
    if not mixed or not odd:
        return []
    return _wrap(f"measurement incomplete in {', '.join(odd)}; the other runs are complete "
                 "(each run directory's report says what was missed)")


def ratio_line(doc: dict) -> str | None:
    r = doc.get("ratio")
    if not r or r.get("ratio") is None:
        return None
    low = "-" if r["low"] is None else f"{r['low']:.3f}"
    high = "-" if r["high"] is None else f"{r['high']:.3f}"
    what = ("B/A of the whole run's speed (A's wall time / B's)" if doc.get("unit") == WHOLE_RUN
            else f"B/A steady {doc.get('unit')}")
    return (f"{what}: {r['ratio']:.3f} ({r['confidence']:.0%} interval "
            f"{low} .. {high}, {r['pairs']} pairs, "
            f"{r.get('method', 't interval of the paired log ratios')})")


def render_text(doc: dict) -> str:
    a, b = doc["sides"]["A"], doc["sides"]["B"]
    lines = _wrap(f"A: {Side('A', a['command'], a['env']).label()}")
    lines += _wrap(f"B: {Side('B', b['command'], b['env']).label()}")
    lines += _wrap(f"{len(doc['order'])} runs in the order {' '.join(doc['order'])}; run "
                   f"directories under {doc['dir']}")
    if (doc.get("timing") or {}).get("text"):
        lines += _wrap(doc["timing"]["text"])
    lines.append("")
    lines.append(_row("", "A", "B").rstrip("\n"))
    for label, va, vb in figure_rows(doc):
        lines.append(_row(label, va, vb).rstrip("\n"))
    lines += measurement_lines(doc)
    lines.append("")
    if doc.get("unit_why"):
        lines += _wrap(f"unlike steps: {doc['unit_why']}")
    lines += _wrap(ratio_line(doc) or "")
    design = doc.get("design")
    if design:
        lines += _wrap(design["text"])
    for n in doc.get("noise") or []:
        lines += _wrap(f"noise: {n}")
    for n in doc.get("left_out") or []:
        lines += _wrap(f"left out: {n}")
    for c in doc.get("protocol_changes") or []:
        lines += _wrap(f"protocol change: {c['field']}: {c['a']} -> {c['b']}")
    for line in outputs_lines(doc.get("outputs")):
        indent = line[:len(line) - len(line.lstrip())]
        lines += _wrap(line.lstrip(), indent=indent)
    for e in doc.get("outputs_explained") or []:
        lines += _wrap(explained_line(e))
    f = doc.get("failed")
    if f:
        lines += _wrap(f"run {f['run']} failed with exit status {f['exit_status']}: its stderr "
                       f"is {f['stderr']}, its run directory {f['run_dir']}")
    lines += _wrap(f"verdict: {doc['verdict']}")
    return "".join(line + "\n" for line in lines)


def explained_line(e: dict) -> str:
    """'outputs differ' tied to the finding that explains it: side A's report has
    train-mode-in-eval (a finding that changes results) and B's does not."""
    where = f" at {e['where']}" if e.get("where") else ""
    how = "seen in the source by lint" if e.get("source") == "lint" else "measured in the run"
    other = "B" if e["side"] == "A" else "A"
    what = (f"dropout and batch-norm ran in training mode in {e['side']} and not in {other}"
            if e["code"] == "train-mode-in-eval" else e["title"])
    return (f"why the outputs differ: {e['side']}'s report has {e['code']}{where} ({how}) "
            f"and {other}'s does not: {what}, which changes results, not only speed; the "
            f"outputs are expected to differ (`fastenough explain {e['code']}`)")
