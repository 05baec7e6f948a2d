#!/usr/bin/env python3
"""Check the MCP answers of reports before and after a change to how they are made.

For every report same_renders.py renders (the traces same_reports.py lists, analysed;
every fastenough.report/1 under tests/data; every report.json under the --runs roots,
/tmp by default, with its run directory), it makes the two answers the MCP tools give
of a report: the compact one (`run`, `analyze`, `report` with detail=compact: top 5)
and the full one (`report` detail=full, top 50), each bounded as the server sends it
(answers.bound). Dump once before the change and compare after: each difference is
listed by the answer's key and the first few shown in full; the exit status is 1 when
any differ. --src DIR imports fastenough from DIR (a copy of python/ at an earlier
commit), as same_renders.py does, so both sides can be dumped after the change.

  python bench/same_mcp_answers.py --dump /tmp/mcp_before
  ... change ...
  python bench/same_mcp_answers.py --compare /tmp/mcp_before
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import same_renders  # noqa: E402  (the cases and their documents, as it lists them)
import same_reports  # noqa: E402

ANSWERS = {"compact": {"top": 5, "detail": False}, "full": {"top": 50, "detail": True}}


def make_answers(doc: dict, run_dir: str | None) -> dict[str, str]:
    from fastenough.mcp import answers, limits
    from fastenough.report import load

    try:
        report = load(doc)
    except Exception as e:  # noqa: BLE001 - the tools refuse it (internal, 3)
        return {k: f"refused {type(e).__name__}" for k in ANSWERS}
    out = {}
    for name, kw in ANSWERS.items():
        try:
            fn = answers.report_answer
            # Since issue 35 item 3 the answer renders the report's view.
            arg = report
            if fn.__code__.co_varnames[0] == "view":
                from fastenough.render.view.build import build_view

                arg = build_view(report)
            a = answers.bound(fn(arg, top=kw["top"], files={}, detail=kw["detail"]))
            out[name] = limits.to_text(a)
        except Exception as e:  # noqa: BLE001
            out[name] = f"error {type(e).__name__}: {e}"
    return out


def _keys_that_differ(want: str, got: str) -> list[str]:
    try:
        a, b = json.loads(want), json.loads(got)
    except ValueError:
        return ["(text)"]
    keys = sorted(set(a) | set(b))
    return [k for k in keys if a.get(k) != b.get(k)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--dump", metavar="DIR")
    g.add_argument("--compare", metavar="DIR")
    p.add_argument("--runs", action="append", default=None,
                   help="a folder searched for run directories' report.json (default /tmp)")
    p.add_argument("--skip", action="append", default=[], help="a folder not searched")
    p.add_argument("--show", type=int, default=3, help="differences shown in full")
    p.add_argument("--src", help="import fastenough from this folder")
    a = p.parse_args(argv)
    if a.src:
        sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__]
        sys.path.insert(0, os.path.abspath(a.src))
    core = same_reports.load_core(None)
    from fastenough.source_roots import current_roots

    roots = current_roots()
    target = a.dump or a.compare
    cases = same_renders.report_cases(a.runs or ["/tmp"], a.skip + [target])
    index: dict = {}
    if a.dump:
        os.makedirs(a.dump, exist_ok=True)
    else:
        with open(os.path.join(a.compare, "index.json")) as f:
            index = json.load(f)
    counts = {"same": 0, "differ": 0, "new": 0, "gone": 0, "skipped": 0}
    kinds: dict[str, int] = {}
    shown = 0
    spent = 0.0
    for name, case in cases.items():
        doc, run_dir, _ = same_renders.document(case, core, roots)
        if doc is None:
            counts["skipped"] += 1
            continue
        t0 = time.perf_counter()
        got = make_answers(doc, run_dir)
        spent += time.perf_counter() - t0
        path = os.path.join(target, same_renders.file_name(name))
        if a.dump:
            with gzip.open(path, "wt", encoding="utf-8") as f:
                json.dump(got, f)
            index[name] = {k: hashlib.sha1(v.encode()).hexdigest() for k, v in got.items()}
            continue
        if name not in index:
            counts["new"] += 1
            continue
        with gzip.open(path, "rt", encoding="utf-8") as f:
            want = json.load(f)
        diff = [k for k in ANSWERS if got.get(k) != want.get(k)]
        if not diff:
            counts["same"] += 1
            continue
        counts["differ"] += 1
        for k in diff:
            for key in _keys_that_differ(want[k], got[k]):
                kinds[f"{k}.{key}"] = kinds.get(f"{k}.{key}", 0) + 1
        if shown < a.show:
            shown += 1
            print(f"DIFF {name}")
            for k in diff:
                print(f"  before/{k}: {want[k][:1500]}\n  after/{k}:  {got[k][:1500]}")
    n = len(index) if a.dump else sum(counts.values()) - counts["skipped"]
    if a.dump:
        with open(os.path.join(a.dump, "index.json"), "w") as f:
            json.dump(index, f)
        print(f"dumped {len(index)} reports' answers ({counts['skipped']} inputs skipped) "
              f"to {a.dump}")
    else:
        counts["gone"] = len(set(index) - set(cases))
        print(f"{len(cases)} inputs: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        for k, v in sorted(kinds.items()):
            print(f"  answers whose {k} differs: {v}")
    print(f"answers: {spent:.1f} s in all, {spent / max(n, 1) * 1e3:.1f} ms per report")
    return 1 if (a.compare and (counts["differ"] or counts["gone"])) else 0


if __name__ == "__main__":
    sys.exit(main())
