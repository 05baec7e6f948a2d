#!/usr/bin/env python3
"""Check that a change to the core leaves every report byte for byte the same.

Dumps, for each input (every trace of the HTA corpus, the traces under
tests/data, a few multi-rank jobs, and the traces given with --trace), what the
core writes for it: `_core.analyze_to_json` (the document `analyze --json`
prints) and `_core.analyze_with_summaries` (the report again and each rank's
fastenough.rank-summary/1), or the error it gives. Run it once before the
change (--dump DIR) and once after (--compare DIR): every difference is listed
and the exit status is 1.

  python bench/same_reports.py --dump /tmp/before --trace /tmp/t103/trace_100MB.json
  ... change, rebuild ...
  python bench/same_reports.py --compare /tmp/before --trace /tmp/t103/trace_100MB.json

--core PATH loads that build of fastenough._core (a .so kept from before the
change) instead of the installed one, so both sides can be dumped after the
rebuild.

--run-dir DIR (repeatable) adds a run directory: the report `fastenough run`
writes of it (_core.analyze_run_dir) four ways: as it is, with the lint
cross-reference, compared with the other given run directories that hold a
report.json (repeatability), and with an in-job choice and an ended program
(run_details.in_job, the run block). The lint part reads the program's files
where meta.json's cwd says: keep them for the compare (a pytest tmp dir goes).

  python bench/same_reports.py --dump /tmp/before --run-dir /tmp/runs/r1 --run-dir /tmp/runs/r2
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CORPUS = os.environ.get("FASTENOUGH_CORPUS", "/work/shared/corpus/hta")
DATA = os.path.join(REPO, "tests", "data")


def load_core(path: str | None):
    if path is None:
        from fastenough import _core

        return _core
    spec = importlib.util.spec_from_file_location("fastenough._core", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inputs(extra: list[str]) -> dict[str, list[str]]:
    """name -> the paths of one analysis (one per rank)."""
    cases: dict[str, list[str]] = {}
    for p in sorted(glob.glob(os.path.join(CORPUS, "**", "*.json*"), recursive=True)):
        cases["corpus/" + os.path.relpath(p, CORPUS)] = [p]
    for sub in ("traces", "golden", "detectors"):
        for p in sorted(glob.glob(os.path.join(DATA, sub, "*.json"))):
            if not p.endswith(".expected.json"):
                cases[f"data/{sub}/{os.path.basename(p)}"] = [p]
    jobs = {
        "job/straggler": [os.path.join(DATA, "detectors", f"straggler_rank{r}.json")
                          for r in (0, 1)],
        "job/trace_filter": [os.path.join(CORPUS, "trace_filter", f"sampled_rank-{r}.json.gz")
                             for r in (0, 1)],
    }
    for name, paths in jobs.items():
        if all(os.path.exists(p) for p in paths):
            cases[name] = paths
    for p in extra:
        cases["trace/" + os.path.basename(p)] = [p]
    return cases


def dump(core, roots: dict, paths: list[str]) -> dict[str, str]:
    out = {}
    try:
        out["report"] = core.analyze_to_json(paths, None, 0, roots)
    except Exception as e:  # noqa: BLE001 - the error is part of the output
        out["report"] = f"error {type(e).__name__}: {e}"
    try:
        job = core.analyze_with_summaries(paths, None, 0, roots)
        out["job_report"] = job["report"]
        for i, (rank, text) in enumerate(job["summaries"]):
            out[f"summary{i}"] = f"rank {rank}\n{text}"
    except Exception as e:  # noqa: BLE001
        out["job_report"] = f"error {type(e).__name__}: {e}"
    return out


def dump_run(core, run_dir: str, earlier: list[str]) -> dict[str, str]:
    """The run report of run_dir, four ways (see the module's doc)."""
    others = [e for e in earlier if e != run_dir][:3]
    ways = {
        "run": {},
        "run_lint": {"cross_reference_lint": True},
        "run_earlier": {"earlier_runs": [(i + 1, e, None if i else "2026-01-01T00:00:00")
                                         for i, e in enumerate(others)]},
        "run_in_job": {"in_job": {"used": False, "ranks": [0], "missing_ranks": [1],
                                  "why_missing": {"1": "it died"}, "note": "n"},
                       "ended": (None, 9, 123)},
    }
    out = {}
    for part, kwargs in ways.items():
        try:
            out[part] = core.analyze_run_dir(run_dir, **kwargs)
        except Exception as e:  # noqa: BLE001 - the error is part of the output
            out[part] = f"error {type(e).__name__}: {e}"
    return out


def file_name(case: str, part: str) -> str:
    return case.replace("/", "__") + "." + part


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--dump", metavar="DIR")
    g.add_argument("--compare", metavar="DIR")
    p.add_argument("--trace", action="append", default=[], help="another trace (repeatable)")
    p.add_argument("--core", help="a _core .so to load instead of the installed one")
    p.add_argument("--run-dir", action="append", default=[],
                   help="a run directory, its run report four ways (repeatable)")
    a = p.parse_args(argv)
    core = load_core(a.core)
    from fastenough.source_roots import current_roots

    roots = current_roots()
    cases = inputs(a.trace)
    runs = {"run/" + os.path.basename(os.path.normpath(d)): os.path.abspath(d) for d in a.run_dir}
    earlier = [d for d in runs.values() if os.path.exists(os.path.join(d, "report.json"))]
    cases.update({name: ["run", d] for name, d in runs.items()})
    if a.dump:
        os.makedirs(a.dump, exist_ok=True)
    bad = 0
    for case, paths in cases.items():
        got = (dump_run(core, paths[1], earlier) if paths[0] == "run"
               else dump(core, roots, paths))
        if a.dump:
            for part, text in got.items():
                with open(os.path.join(a.dump, file_name(case, part)), "w") as f:
                    f.write(text)
            with open(os.path.join(a.dump, file_name(case, "parts")), "w") as f:
                json.dump(sorted(got), f)
            print(f"{case}: {len(got)} parts", flush=True)
            continue
        with open(os.path.join(a.compare, file_name(case, "parts"))) as f:
            parts = json.load(f)
        if sorted(got) != parts:
            print(f"DIFF {case}: parts {sorted(got)} != {parts}")
            bad += 1
            continue
        for part in parts:
            with open(os.path.join(a.compare, file_name(case, part))) as f:
                want = f.read()
            if got[part] != want:
                bad += 1
                print(f"DIFF {case} {part}: {len(want)} -> {len(got[part])} bytes")
            else:
                digest = hashlib.sha1(want.encode()).hexdigest()[:10]
                print(f"same {case} {part} ({len(want)} bytes, {digest})", flush=True)
    if a.compare:
        print(f"{len(cases)} inputs, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
