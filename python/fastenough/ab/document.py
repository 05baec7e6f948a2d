"""The fastenough.ab/1 document: both sides' runs and figures, the ratio with its
interval, the protocol changes, the outputs' comparison and the verdict.

  {"schema": "fastenough.ab/1", "dir": str, "order": ["A", "B", "B", "A", ...],
   "sides": {"A": {"command": [...], "env": {...}, "protocol": {field: value},
                   "runs": [{"run_dir", "exit_status", "timing_only", "steps_per_s",
                             "items_per_s", "step_median_ns", "steady_steps",
                             "cold_start_ns", "wall_ns", "peak_rss_bytes",
                             "peak_device_bytes", "measurement"}]},
             "B": {...}},
   "unit": "items/s" | "steps/s" | "runs/s" | null,
   "unit_why": str,   (only with "runs/s": the sides' steady steps are unlike, another
     mode or, in steps/s, counts more than 2x apart, so that each run's whole wall time
     is compared: B/A of runs/s is A's wall time over B's; ab/figures.py unlike_steps)
   "ratio": {"ratio", "low", "high", "confidence", "pairs", "method"} | null,
   "speed": "B faster" | "B slower" | "no difference shown" | "not measured",
   "verdict": str, "noise": [str], "protocol_changes": [{"field", "a", "b"}],
   "outputs": fastenough.compare/1 | {"verdict": "not compared", "why": str} | null,
   "failed": {"side", "run", "exit_status", "run_dir", "stderr"} | null,
   "left_out": [str],   (pairs left out: a run of the pair measured no steady steps, or
     the pair's runs ran the full agent while timing-only pairs are enough)
   "timing": {"full": ["A1", "B1"], "timing_only": ["B2", "A2", ...],
              "ratio_of": "timing-only pairs" | "every pair", "text": str}
     (which runs ran `fastenough run --timing-only`, runner.py: with two or more
     measured pairs of timing-only runs, the ratio is of those pairs alone)
   "outputs_explained": [{"side", "code", "title", "where", "source": "runtime" | "lint"}]
     (when the outputs differ: findings that change results, in one side's first
     report and not the other's: train-mode-in-eval, dropout on in A, off in B)
   "design": {"kind": "fixed" | "sequential", "rounds", "pairs", "max_rounds", "looks",
              "look_confidence", "confidence", "stopped": "decided" | "max-rounds" |
              "budget" | "fixed" | "failed", "text"}}   (ab/design.py; set by the CLI;
   the ratio's interval is at look_confidence)

Figures are null where a run did not measure them; a ratio is null when a side
failed.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from pathlib import Path

from fastenough.ab.figures import WHOLE_RUN, Figures, common_unit, figures_of, unlike_steps
from fastenough.ab.protocol import protocol_changes, protocol_of, steady_window_note
from fastenough.ab.runner import SideRun
from fastenough.ab.sides import Side
from fastenough.ab.verdict import decide
from fastenough.report.model import Report


def _finite(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


def _result_changing(report: Report | None) -> dict[str, dict]:
    """code -> {"where", "source"}: the findings of a report that change results
    (the catalog's changes_results), measured or seen by lint's cross-reference."""
    from fastenough import _core

    codes = {e["code"]: e["title"] for e in _core.finding_catalog() if e.get("changes_results")}
    out: dict[str, dict] = {}
    if report is None:
        return out
    for f in report.findings:
        if f.code in codes and f.code not in out:
            w = next((w for w in f.where if w.file), None)
            out[f.code] = {"title": codes[f.code], "source": "runtime",
                           "where": f"{w.file}:{w.line}" if w else None}
    for u in report.lint.unconfirmed if report.lint is not None else ():
        if u.code in codes and u.code not in out:
            out[u.code] = {"title": codes[u.code], "source": "lint",
                           "where": f"{Path(u.file).name}:{u.line}"}
    return out


def explain_outputs(runs: dict[str, list[SideRun]]) -> list[dict]:
    """Findings that change results in one side's first report and not the other's."""
    first = {name: next((r.report for r in runs[name] if r.report), None) for name in "AB"}
    found = {name: _result_changing(first[name]) for name in "AB"}
    return [dict({"side": name, "code": code}, **info)
            for name, other in (("A", "B"), ("B", "A"))
            for code, info in found[name].items() if code not in found[other]]


def _run_figures(f: Figures) -> dict:
    """A run's figures in the document (its steps' mode decides the unit instead)."""
    return {k: v for k, v in asdict(f).items() if k != "mode"}


def _in_order(runs: dict[str, list[SideRun]]) -> list[SideRun]:
    """The runs in the order they ran (A B B A ...), from the per-side lists."""
    out, taken = [], {"A": 0, "B": 0}
    for name in ["A", "B", "B", "A"] * len(runs["A"] + runs["B"]):
        if taken[name] < len(runs[name]):
            out.append(runs[name][taken[name]])
            taken[name] += 1
    return out


def _timing(runs: dict[str, list[SideRun]]) -> dict:
    """Which runs ran the full agent and which `fastenough run --timing-only`; the
    ratio is of every pair until document() finds two timing-only pairs."""
    order = _in_order(runs)
    t = {"full": [r.side + str(r.index) for r in order if not r.timing_only],
         "timing_only": [r.side + str(r.index) for r in order if r.timing_only],
         "ratio_of": "every pair"}
    t["text"] = _timing_text(t)
    return t


def _timing_text(t: dict) -> str:
    full, timed = " ".join(t["full"]), " ".join(t["timing_only"])
    if not t["timing_only"]:
        return (f"every run ({full}) ran the full agent (checks, and the profiler window where "
                "asked): B/A includes the difference in the agent's own cost between A and B")
    text = (f"{full} ran the full agent (findings, outputs); {timed} ran "
            "`fastenough run --timing-only` (steps timed, no checks)")
    if t["ratio_of"] == "timing-only pairs":
        return text + ": B/A is of the timing-only pairs, with the same agent cost on both sides"
    return (text + ": fewer than 2 pairs are timing-only, so B/A is of every pair and includes "
            "the difference in the agent's own cost between A1 and B1; --rounds 2 or more "
            "times without it")


def document(side_a: Side, side_b: Side, runs: dict[str, list[SideRun]], outputs: dict | None,
             failed: SideRun | None, ab_dir: Path, confidence: float = 0.95) -> dict:
    sides = {}
    figures = {}
    for side in (side_a, side_b):
        rs = runs[side.name]
        figs = [figures_of(r.report) if r.report else None for r in rs]
        figures[side.name] = figs
        first = next((r for r in rs if r.report), None)
        sides[side.name] = {
            "command": side.cmd, "env": side.env,
            "protocol": protocol_of(first.report, first.run_dir, side.env) if first else {},
            "runs": [dict({"run_dir": str(r.run_dir), "exit_status": r.exit_status,
                           "timing_only": r.timing_only},
                          **(_run_figures(f) if f else {}))
                     for r, f in zip(rs, figs, strict=True)],
        }
    doc = {"schema": "fastenough.ab/1", "dir": str(ab_dir),
           "order": [r.side + str(r.index) for r in _in_order(runs)],
           "sides": sides, "unit": None, "ratio": None, "speed": "not measured",
           "verdict": "not measured", "noise": [], "protocol_changes": [],
           "outputs": outputs, "failed": None, "left_out": [],
           "outputs_explained": (explain_outputs(runs)
                                 if (outputs or {}).get("verdict") == "differs" else []),
           "timing": _timing(runs)}
    if failed is not None:
        doc["failed"] = {"side": failed.side, "run": f"{failed.side}{failed.index}",
                         "exit_status": failed.exit_status, "run_dir": str(failed.run_dir),
                         "stderr": str(failed.run_dir.parent
                                       / f"{failed.side}{failed.index}.stderr.txt")}
        doc["verdict"] = (f"no verdict: run {failed.side}{failed.index} failed "
                          f"(exit status {failed.exit_status})")
        return doc
    changes = protocol_changes(sides["A"]["protocol"], sides["B"]["protocol"])
    doc["protocol_changes"] = [{"field": f, "a": a, "b": b} for f, a, b in changes]
    measured = [f for f in figures["A"] + figures["B"] if f and f.steps_per_s]
    unit = common_unit(measured)
    if unit is None:
        doc["unit"] = unit
        doc["verdict"] = "not measured: no run had steady steps to compare"
        return doc
    why = unlike_steps(figures["A"], figures["B"], unit)
    if why is not None:
        unit = WHOLE_RUN
        doc["unit_why"] = why
    doc["unit"] = unit
    # A pair whose runs did not both measure steady throughput is left out whole:
    # the other side's run alone would break the pairing.
    ta, tb, pairs = [], [], []
    for i, (fa, fb) in enumerate(zip(figures["A"], figures["B"], strict=False)):
        xa, xb = fa and fa.throughput(unit), fb and fb.throughput(unit)
        if xa and xb:
            ta.append(xa)
            tb.append(xb)
            pairs.append(i)
        else:
            missed = "no whole-run time" if why else f"no steady {unit}"
            doc["left_out"].append(f"pair {i + 1} (A{i + 1}, B{i + 1}): "
                                   f"{'A' if not xa else 'B'}{i + 1} measured {missed}")
    timed = [runs["A"][i].timing_only and runs["B"][i].timing_only for i in pairs]
    if sum(timed) >= 2 and not all(timed):
        # The full agent's pairs carry the findings; their B/A adds the difference
        # in the agent's own cost, which depends on the program (runner.py).
        kept = [k for k, t in enumerate(timed) if t]
        for k in (k for k, t in enumerate(timed) if not t):
            i = pairs[k]
            doc["left_out"].append(
                f"pair {i + 1} (A{i + 1}, B{i + 1}): the full agent's runs (its checks' cost "
                "per step depends on the program's module calls, so it differs between A "
                "and B); they carry the findings and the outputs, and the ratio is of the "
                "timing-only pairs")
        ta, tb = [ta[k] for k in kept], [tb[k] for k in kept]
        doc["timing"]["ratio_of"] = "timing-only pairs"
        doc["timing"]["text"] = _timing_text(doc["timing"])
    if len(ta) < 2 and why:
        doc["verdict"] = (f"not measured: {why}, and {len(ta)} pair(s) have both runs' whole "
                          "time (2 or more needed): nothing can be compared")
        return doc
    if len(ta) < 2:
        doc["verdict"] = (f"not measured: {len(ta)} pair(s) with steady {unit} (2 or more "
                          "needed); run more steps or --rounds")
        return doc
    v = decide(ta, tb, protocol_changed=bool(changes),
               outputs=(outputs or {}).get("verdict"), confidence=confidence,
               basis=" on the whole run's time (the fix changed what a step is)" if why else "")
    doc["ratio"] = {"ratio": _finite(v.ratio), "low": _finite(v.low), "high": _finite(v.high),
                    "confidence": v.confidence, "pairs": v.pairs, "method": v.method}
    doc["speed"], doc["verdict"], doc["noise"] = v.speed, v.text, list(v.noise)
    if not any(f == "tokens per item (padded length)" for f, _, _ in changes):
        first = {name: next((r.run_dir for r in runs[name] if r.report), None) for name in "AB"}
        note = steady_window_note(first["A"], first["B"])
        if note:
            doc["noise"].append(note)
    return doc
