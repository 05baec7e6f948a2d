"""The report invariants (docs/report-schema.md, Invariants), checked on every report the test
suite produces: the real programs of tests/real, the demo, the corpus traces,
the golden inputs and every `fastenough run` / `analyze --json` a test makes
(tests/python/conftest.py checks them all).

    from report_invariants import violations
    assert not violations(report), violations(report)

An oracle written apart from the code it checks: it reads only the report and
the source files the report names. What it holds a report to:

  places    a finding's file is the user's own: never fastenough's, never an
            installed library or the standard library (those may only be
            named as "inside"); a line is the line of a call, never a def,
            class or decorator line (checked against the file when it can be
            read); no made-up place ("?", line 0).
  text      no finding's text names fastenough's own code.
  overlaps  every code a finding says it overlaps is a finding of its rank,
            and the relation is mutual.
  totals    the avoidable findings of a rank, overlapping ones counted once
            (their largest share), save at most one step; the report's
            "avoidable" block says the same.
  verdicts  no finding denies the avoidable findings of its rank ("nothing
            here is avoidable" beside one).
  savings   shares of a step lie in [0, 1]; times are not negative.
  path      a finding that reports the critical path's time on its own
            events saves at most that plus the time the path cannot
            explain (own_critical_path_ns_per_step +
            critical_path_unexplained_ns_per_step, over the path's mean step).
  split     a step-bound finding's parts of a step (forward, backward,
            optimizer, data) add up to at most the step, and "other" is
            not negative (issue 37, item 4: 129-159% on cleanrl PPO, PyG
            link prediction, GAT).
  reference a run report has one step reference, the steady median of its
            headline mode (steps.steady_median_ns): every finding's time per
            step is its share of that step (the demo's "<= 1.41 ms/step
            (1.6% of a step)" was 1.6% of the 88.8 ms profiled step beside a
            15.5 ms steady median), and a finding that names its reference
            (evidence step_reference_ns) names that one.
  blind     a measurement that is not complete says why.
  numbers   no impossible number anywhere in the report: a duration,
            byte count or count is never negative (timestamps may be, and a
            queue delay may: a kernel can start before its launch call
            returns); a share of busy time, utilisation or efficiency lies in
            [0, 1]; a launch delay (launch call start to kernel start) is not
            negative; world_size is at least 1 and at least the number of
            distinct known ranks; a rank is not negative.
"""

from __future__ import annotations

import os
import re
import sysconfig

_LIBRARY_PACKAGES = {
    "torch", "torchvision", "torchaudio", "transformers", "tokenizers", "accelerate",
    "datasets", "huggingface_hub", "safetensors", "peft", "diffusers", "sentence_transformers",
    "timm", "lightning", "pytorch_lightning", "lightning_fabric", "lightning_utilities",
    "torchmetrics", "torch_geometric", "x_transformers", "einops", "numpy", "scipy", "tqdm",
    "triton", "gymnasium", "matplotlib", "PIL",
}
# fastenough's own code, where a report can name it: this checkout's package
# by its absolute path; an installed copy (".../site-packages/fastenough/...");
# a name relative to a sys.path entry ("fastenough/agent/checks/logits.py", as
# torch.profiler names frames), where nothing stands before "fastenough/" but
# the start or a space, quote or bracket. The bundled demo (fastenough/demo) is
# the user's code of its runs. A directory called fastenough above the package
# (a checkout cloned as .../fastenough/python/fastenough/) or a user's own
# project called fastenough (/home/u/fastenough/train.py) is not ours.
_PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "python", "fastenough") + os.sep
_DEMO = _PACKAGE + "demo" + os.sep
_INSTALLED = re.compile(r"-packages/fastenough/(?!demo/)[a-z_]+")
_RELATIVE = re.compile(r"""(^|[\s'"(\[])fastenough/(?!demo/)[a-z_]+""")
_DENIALS = ("nothing here is avoidable", "nothing in this trace is avoidable",
            "no avoidable waste")
_DEF_LINE = re.compile(r"^\s*(async\s+def|def|class)\s|^\s*@")


def _library_dirs() -> list[str]:
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.add(os.path.abspath(p) + os.sep)
    return sorted(dirs)


_LIBS = _library_dirs()


def _is_ours(text: str) -> bool:
    """Whether a place (or a text naming places) is in fastenough's own code."""
    if _PACKAGE in text.replace(_DEMO, "<the demo>/"):
        return True
    return bool(_INSTALLED.search(text) or _RELATIVE.search(text))


def _is_library(path: str) -> bool:
    if not path or path.startswith("<"):
        return True
    if "/site-packages/" in path or "/dist-packages/" in path:
        return "/site-packages/fastenough/demo/" not in path
    if os.path.isabs(path):
        return any(path.startswith(d) for d in _LIBS)
    first = path.split("/", 1)[0]
    return "/" in path and first in _LIBRARY_PACKAGES


def _source_line(path: str, line: int, cwd: str | None) -> str | None:
    candidates = [path] if os.path.isabs(path) else \
        [os.path.join(d, path) for d in (cwd, os.getcwd()) if d]
    for p in candidates:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                for i, text in enumerate(f, 1):
                    if i == line:
                        return text
        except OSError:
            continue
    return None


def _places(f: dict, cwd: str | None) -> list[str]:
    out = []
    code = f.get("code")
    for w in f.get("where") or []:
        path = w.get("file")
        if path is None:
            continue
        where = f"{code} at {path}:{w.get('line') or w.get('def_line')}"
        if path in ("", "?"):
            out.append(f"{where}: a made-up place")
            continue
        if _is_ours(path):
            out.append(f"{where}: a place in fastenough's own code")
        elif _is_library(path):
            out.append(f"{where}: a place in a library (only 'inside' may name one)")
        line = w.get("line")
        if line is None and not w.get("def_line"):
            out.append(f"{where}: a file without a line")
        if line is not None:
            if line < 1:
                out.append(f"{where}: line {line}")
                continue
            text = _source_line(path, line, cwd)
            if text is not None and _DEF_LINE.match(text):
                out.append(f"{where}: the line is a def/class/decorator, not a call: "
                           f"{text.strip()!r}")
        inside = w.get("inside")
        if inside and _is_ours(inside):
            out.append(f"{where}: 'inside' names fastenough's own code: {inside}")
    return out


def _texts(f: dict) -> list[str]:
    out = [f.get("title") or "", f.get("action") or ""]
    out += [v for v in (f.get("evidence") or {}).values() if isinstance(v, str)]
    return out


def _share(f: dict) -> float:
    s = (f.get("saving") or {}).get("share_of_step")
    return s if isinstance(s, (int, float)) and s > 0 else 0.0


def _rank(f: dict) -> int:
    r = f.get("rank")
    return r if isinstance(r, int) and r >= 0 else 0


def _totals(findings: list[dict]) -> dict[int, float]:
    """Per rank: the avoidable findings' shares, overlapping ones once."""
    by_rank: dict[int, list[dict]] = {}
    for f in findings:
        if f.get("verdict") == "avoidable" and _share(f) > 0:
            by_rank.setdefault(_rank(f), []).append(f)
    totals = {}
    for rank, fs in by_rank.items():
        group = list(range(len(fs)))  # union-find over "overlaps"
        for i, a in enumerate(fs):
            for j, b in enumerate(fs):
                if j > i and b.get("code") in (a.get("overlaps") or []):
                    gi, gj = _root(group, i), _root(group, j)
                    group[gi] = gj
        best: dict[int, float] = {}
        joint: dict[int, float] = {}
        for i, f in enumerate(fs):
            g = _root(group, i)
            best[g] = max(best.get(g, 0.0), _share(f))
            if _priced_jointly(f):
                joint[g] = joint.get(g, 0.0) + _share(f)
        for g, j in joint.items():  # the eval probe's pair: their sum, capped at the step
            best[g] = max(best[g], min(j, 1.0))
        totals[rank] = sum(best.values())
    return totals


def _priced_jointly(f: dict) -> bool:
    """train-mode-in-eval and autograd-in-eval priced by the eval probe: their claims
    are made to add up to what both fixes save (findings/overlaps.cc)."""
    basis = (f.get("evidence") or {}).get("saving_basis")
    return (f.get("code") in ("train-mode-in-eval", "autograd-in-eval")
            and isinstance(basis, str) and basis.startswith("measured"))


def _root(group: list[int], x: int) -> int:
    while group[x] != x:
        x = group[x]
    return x


def _path_bounds(report: dict) -> list[str]:
    """Savings within the critical path's time on the finding's events plus
    the time the path cannot explain (rounding: a per-step figure is rounded
    to a ns, the share to 3 places)."""
    out = []
    rows = [p for p in ((report.get("critical_path") or {}).get("per_rank") or [])
            if isinstance(p, dict)]
    ranks = [p.get("rank") for p in rows]
    # A rank given twice (two inputs of rank 0) cannot be told apart here.
    paths = {p.get("rank"): p for p in rows if ranks.count(p.get("rank")) == 1}
    for f in report.get("findings") or []:
        ev = f.get("evidence") or {}
        own, unexplained = ev.get("own_critical_path_ns_per_step"), ev.get(
            "critical_path_unexplained_ns_per_step")
        share = (f.get("saving") or {}).get("share_of_step")
        p = paths.get(_rank(f))
        if None in (own, unexplained, share, p) or not p.get("window_ns"):
            continue
        mean_step = p["window_ns"] / max(1, len(p.get("steps") or []))
        bound = (own + unexplained + 1) / mean_step
        if share > bound + 1e-3:
            out.append(f"{f.get('code')}: saves {share:.3f} of a step, more than the critical "
                       f"path's time on its events and what the path cannot explain ({bound:.3f})")
    return out


# Keys ending in _ns that are instants, not durations: they may be negative.
_INSTANTS = {"start_ns", "end_ns", "ts_ns", "first_ts_ns", "last_ts_ns", "peak_ts_ns",
             "window_start_ns", "window_end_ns", "base_time_ns", "wall_start_ns",
             "wall_end_ns", "t0_ns", "time_ns"}
# Launch call end to kernel start: negative when the kernel starts before the
# call returns, which CUDA allows.
_MAY_BE_NEGATIVE = {"queue_delay_median_ns", "queue_delay_p90_ns"}
# Ratios of a part to its whole.
_SHARES = {"share_of_busy", "share_of_kernel_time", "gpu_utilization", "sm_efficiency",
           "tensor_core_share", "device_busy_share", "critical_path_share",
           "job_critical_path_share"}


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _impossible_numbers(report: dict) -> list[str]:
    """Numbers no input can make true (issue 34 item 13), wherever they are."""
    out: list[str] = []

    def walk(o, path: str) -> None:
        if isinstance(o, dict):
            for k, v in o.items():
                where = f"{path}.{k}"
                if isinstance(v, (dict, list)):
                    if k not in ("meta",):  # meta: the run's open record, not figures
                        walk(v, where)
                    continue
                if not _is_number(v):
                    continue
                if v != v or v in (float("inf"), float("-inf")):
                    out.append(f"{where} = {v}: not a finite number")
                elif k in _SHARES and not -1e-9 <= v <= 1 + 1e-9:
                    out.append(f"{where} = {v}: a share outside [0, 1]")
                elif (k.endswith("_ns") and k not in _INSTANTS and k not in _MAY_BE_NEGATIVE
                      and v < 0):
                    out.append(f"{where} = {v}: a negative duration")
                elif (k.endswith("_bytes") or k.endswith("_count") or k == "count") and v < 0:
                    out.append(f"{where} = {v}: a negative byte count or count")
        elif isinstance(o, list):
            for i, v in enumerate(o):
                if isinstance(v, (dict, list)):
                    walk(v, f"{path}[{i}]")

    for key, value in report.items():
        if key not in ("meta", "decision", "run") and isinstance(value, (dict, list)):
            walk(value, f"$.{key}")
    ranks = {r for i in report.get("inputs") or [] for r in (i.get("ranks") or [])
             if _is_number(r)}
    for r in sorted(ranks):
        if r < 0:
            out.append(f"$.inputs: rank {r} is negative")
    ws = (report.get("meta") or {}).get("world_size")
    if _is_number(ws) and (ws < 1 or ws < len(ranks)):
        out.append(f"$.meta.world_size = {ws} with {len(ranks)} distinct rank(s) in the inputs")
    return out


_SPLIT = ("forward_share", "backward_share", "optimizer_share", "data_share")


def _step_splits(findings: list[dict]) -> list[str]:
    """The parts of a step add up to at most the step."""
    out = []
    for f in findings:
        ev = f.get("evidence") or {}
        parts = [ev.get(k) for k in _SPLIT]
        if not any(_is_number(p) for p in parts):
            continue
        total = sum(p for p in parts if _is_number(p))
        if total > 1 + 1e-6:
            out.append(f"{f.get('code')}: its parts of a step add up to {total:.0%} of the step "
                       f"({', '.join(f'{k} {ev.get(k)}' for k in _SPLIT)})")
        other = ev.get("other_share")
        if _is_number(other) and other < -1e-9:
            out.append(f"{f.get('code')}: other_share {other} < 0")
    return out


def _step_reference(report: dict) -> list[str]:
    """A run report's savings are shares of its own steady median step."""
    steps = report.get("steps") or {}
    ref = steps.get("steady_median_ns") if isinstance(steps, dict) else None
    if not isinstance(report.get("run"), dict) or not _is_number(ref) or ref <= 0:
        return []  # a trace's report: its steps are the profiled ones
    out = []
    for f in report.get("findings") or []:
        saving = f.get("saving") or {}
        per_step, share = saving.get("per_step_ns"), saving.get("share_of_step")
        named = (f.get("evidence") or {}).get("step_reference_ns")
        if _is_number(named) and abs(named - ref) > max(1.0, 1e-3 * ref):
            out.append(f"{f.get('code')}: priced against a {named:.0f} ns step, not the report's "
                       f"step reference ({ref:.0f} ns, the steady median)")
        if not (_is_number(per_step) and _is_number(share)) or per_step <= 0 or share <= 0:
            continue
        expect = min(1.0, share) * ref
        if abs(per_step - expect) > 0.01 * expect + 1000:
            out.append(f"{f.get('code')}: {per_step / 1e6:.3g} ms/step is {per_step / ref:.1%} of "
                       f"the report's step reference ({ref / 1e6:.3g} ms, the steady median), "
                       f"but its share of a step says {share:.1%}: priced against another step")
    return out


def violations(report: dict, cwd: str | None = None) -> list[str]:
    """Every invariant the report breaks, in words; [] for a sound report."""
    out: list[str] = []
    findings = report.get("findings") or []
    cwd = cwd or (report.get("meta") or {}).get("cwd")
    for f in findings:
        code = f.get("code")
        out += _places(f, cwd)
        for text in _texts(f):
            if _is_ours(text):
                out.append(f"{code}: its text names fastenough's own code: {text[:120]!r}")
        saving = f.get("saving") or {}
        share = saving.get("share_of_step")
        if isinstance(share, (int, float)) and not 0 <= share <= 1 + 1e-9:
            out.append(f"{code}: share_of_step {share} outside [0, 1]")
        for key in ("per_step_ns", "total_ns"):
            v = saving.get(key)
            if isinstance(v, (int, float)) and v < 0:
                out.append(f"{code}: {key} {v} < 0")
    out += _path_bounds(report)
    out += _step_splits(findings)
    out += _step_reference(report)
    out += _impossible_numbers(report)
    # overlaps: known codes of the same rank, both ways
    by_rank_codes: dict[int, set] = {}
    for f in findings:
        by_rank_codes.setdefault(_rank(f), set()).add(f.get("code"))
    for f in findings:
        for other in f.get("overlaps") or []:
            if other not in by_rank_codes.get(_rank(f), set()):
                out.append(f"{f.get('code')}: overlaps {other}, no finding of its rank")
                continue
            mutual = any(g.get("code") == other and _rank(g) == _rank(f)
                         and f.get("code") in (g.get("overlaps") or []) for g in findings)
            if not mutual:
                out.append(f"{f.get('code')} overlaps {other} but not the other way round")
    # totals: at most a step, and what the report says
    totals = _totals(findings)
    for rank, total in totals.items():
        if total > 1 + 1e-6:
            out.append(f"rank {rank}: the avoidable findings claim {total:.0%} of a step "
                       "together (overlapping ones counted once): more than the step")
    said = {t.get("rank"): t for t in report.get("avoidable") or []}
    for rank, total in totals.items():
        t = said.get(rank)
        if t is None:
            out.append(f"rank {rank}: avoidable findings but no 'avoidable' total in the report")
        elif abs(min(total, 1.0) - t.get("share_of_step", -1)) > 1e-6:
            out.append(f"rank {rank}: the report's avoidable total {t.get('share_of_step')} is not "
                       f"the findings' {total}")
    # verdicts: nothing denies an avoidable finding of its rank
    for rank in totals:
        for f in findings:
            if _rank(f) != rank:
                continue
            for text in (f.get("title") or "", f.get("action") or ""):
                low = text.lower()
                if any(d in low for d in _DENIALS):
                    out.append(f"{f.get('code')} says {text[:80]!r} beside avoidable findings")
    # a measurement that is not complete says why
    m = report.get("measurement")
    if isinstance(m, dict) and m.get("status") not in (None, "complete") and not m.get("reasons"):
        out.append(f"measurement {m.get('status')} without reasons")
    return out
