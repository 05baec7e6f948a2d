#!/usr/bin/env python3
"""Check that a change to the renderers leaves every rendered report byte for byte the same.

For each report (what `fastenough analyze --json` gives for every trace same_reports.py
lists: the HTA corpus, tests/data, a few multi-rank jobs; every fastenough.report/1
document under tests/data; every report.json under the --runs roots, /tmp by default,
rendered with its run directory as `fastenough report RUN` does), it renders the
terminal report (rich, fixed width, no colour), the Markdown and the HTML page, or
records the error it gives. Run it once before the change (--dump DIR) and once after
(--compare DIR): every difference is listed and the exit status is 1.

  python bench/same_renders.py --dump /tmp/renders_before
  ... change ...
  python bench/same_renders.py --compare /tmp/renders_before

It calls the renderers as the CLI does: before issue 35 item 3 the view builder took the
raw dict; since, it takes the typed Report (fastenough.report.load) and one view feeds
all three renderers. A report the typed loader refuses (an earlier release's, a
hand-edited one) is counted apart: the CLI refuses it with exit 2 where it rendered it.
--timing prints the time of load + build_view + the three renderers per report.
--src DIR imports fastenough from DIR (a copy of python/ at the commit before the change,
with the installed _core linked in) instead of the working tree, so both sides can be
dumped after the change.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import hashlib
import inspect
import io
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA = os.path.join(REPO, "tests", "data")
sys.path.insert(0, HERE)

import same_reports  # noqa: E402  (the traces and their analysis, as it lists them)

WIDTH = 120


def report_cases(runs_roots: list[str], skip: list[str]) -> dict[str, tuple]:
    """name -> ("trace", paths) | ("file", path, run_dir or None)."""
    cases: dict[str, tuple] = {}
    for name, paths in same_reports.inputs([]).items():
        cases["analyze/" + name] = ("trace", paths)
    for p in sorted(glob.glob(os.path.join(DATA, "**", "*.json"), recursive=True)):
        try:
            with open(p, encoding="utf-8") as f:
                head = f.read(4096)
        except (OSError, UnicodeDecodeError):
            continue
        if '"fastenough.report/1"' in head:
            cases["data/" + os.path.relpath(p, DATA)] = ("file", p, None)
    skip_abs = [os.path.abspath(s) for s in skip]
    for root in runs_roots:
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            if any(os.path.abspath(dirpath).startswith(s) for s in skip_abs):
                dirnames[:] = []
                continue
            if dirpath.count(os.sep) - root.rstrip(os.sep).count(os.sep) >= 6:
                dirnames[:] = []
            # A FIFO named report.json (the tests' run directories have some) would block.
            if "report.json" in filenames and os.path.isfile(os.path.join(dirpath,
                                                                          "report.json")):
                found.append(os.path.join(dirpath, "report.json"))
        for p in sorted(found):
            # A folder holding report.json is a run directory to `fastenough report`.
            cases["run" + os.path.abspath(p)] = ("file", p, os.path.dirname(p))
    return cases


def _typed() -> bool:
    """Whether build_view takes the typed Report (after item 3) or the raw dict."""
    from fastenough.render.view.build import build_view

    ann = inspect.signature(build_view).parameters["report"].annotation
    return "dict" not in str(ann)


def render(doc: dict, run_dir: str | None, typed: bool) -> dict[str, str]:
    """The three renderings of `doc` the way the CLI makes them."""
    from rich.console import Console

    from fastenough.render.html import view_to_html
    from fastenough.render.markdown import view_to_markdown
    from fastenough.render.terminal import print_view
    from fastenough.render.view.build import build_view
    from fastenough.report import load

    out: dict[str, str] = {}
    try:
        load(doc)
        out["loads"] = "yes"
    except Exception as e:  # noqa: BLE001 - the answer is part of the output
        out["loads"] = f"no: {type(e).__name__}: {e}"
    try:
        report = load(doc) if typed else doc
        view = build_view(report, run_dir)
    except Exception as e:  # noqa: BLE001
        err = f"error {type(e).__name__}: {e}"
        return {**out, "terminal": err, "md": err, "html": err}
    for part, fn in (("terminal", lambda: _terminal(view, Console, print_view)),
                     ("md", lambda: view_to_markdown(view)),
                     ("html", lambda: view_to_html(view))):
        try:
            out[part] = fn()
        except Exception as e:  # noqa: BLE001
            out[part] = f"error {type(e).__name__}: {e}"
    return out


def _terminal(view, console_cls, print_view) -> str:
    buf = io.StringIO()
    print_view(view, console=console_cls(file=buf, width=WIDTH, color_system=None,
                                         force_terminal=False))
    return buf.getvalue()


def document(case: tuple, core, roots) -> tuple[dict | None, str | None, str]:
    """The report of a case, its run directory, and what it is (or the error)."""
    if case[0] == "trace":
        try:
            text = core.analyze_to_json(case[1], None, 0, roots)
        except Exception as e:  # noqa: BLE001
            return None, None, f"error {type(e).__name__}: {e}"
        return json.loads(text), None, "analyze"
    try:
        with open(case[1], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return None, None, f"error {type(e).__name__}: {e}"
    if not isinstance(doc, dict) or doc.get("schema") != "fastenough.report/1":
        return None, None, "not a report"
    return doc, case[2], "file"


def file_name(case: str) -> str:
    return hashlib.sha1(case.encode()).hexdigest()[:16] + ".json.gz"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--dump", metavar="DIR")
    g.add_argument("--compare", metavar="DIR")
    p.add_argument("--runs", action="append", default=None,
                   help="a folder searched for run directories' report.json (default /tmp)")
    p.add_argument("--skip", action="append", default=[], help="a folder not searched")
    p.add_argument("--timing", action="store_true")
    p.add_argument("--show", type=int, default=3, help="differences shown in full")
    p.add_argument("--src", help="import fastenough from this folder (see above)")
    a = p.parse_args(argv)
    if a.src:
        # The editable install's finder comes first on sys.meta_path: drop it.
        sys.meta_path[:] = [f for f in sys.meta_path
                            if "editable" not in type(f).__module__]
        sys.path.insert(0, os.path.abspath(a.src))
    core = same_reports.load_core(None)
    from fastenough.source_roots import current_roots

    roots = current_roots()
    target = a.dump or a.compare
    cases = report_cases(a.runs or ["/tmp"], a.skip + [target])
    typed = _typed()
    if a.dump:
        os.makedirs(a.dump, exist_ok=True)
        index = {}
    else:
        with open(os.path.join(a.compare, "index.json")) as f:
            index = json.load(f)
    counts = {"same": 0, "differ": 0, "refused": 0, "new": 0, "gone": 0, "skipped": 0}
    shown = 0
    spent = 0.0
    for name, case in cases.items():
        doc, run_dir, kind = document(case, core, roots)
        if doc is None:
            counts["skipped"] += 1
            continue
        t0 = time.perf_counter()
        got = render(doc, run_dir, typed)
        spent += time.perf_counter() - t0
        got["kind"] = kind
        if a.dump:
            with gzip.open(os.path.join(a.dump, file_name(name)), "wt", encoding="utf-8") as f:
                json.dump(got, f)
            index[name] = {k: hashlib.sha1(v.encode()).hexdigest() for k, v in got.items()}
            continue
        if name not in index:
            counts["new"] += 1
            print(f"NEW {name}")
            continue
        with gzip.open(os.path.join(a.compare, file_name(name)), "rt", encoding="utf-8") as f:
            want = json.load(f)
        diff = [k for k in ("terminal", "md", "html") if got.get(k) != want.get(k)]
        if not diff:
            counts["same"] += 1
            continue
        if got["loads"] != "yes":
            counts["refused"] += 1
            print(f"REFUSED {name}: {got['loads'][:200]}")
            continue
        counts["differ"] += 1
        print(f"DIFF {name}: {', '.join(diff)}")
        if shown < a.show:
            shown += 1
            import difflib

            for k in diff:
                sys.stdout.writelines(difflib.unified_diff(
                    want[k].splitlines(True), got[k].splitlines(True), f"before/{k}",
                    f"after/{k}", n=1))
    if a.dump:
        with open(os.path.join(a.dump, "index.json"), "w") as f:
            json.dump(index, f)
        loads = sum(1 for v in index.values() if "loads" in v)
        print(f"dumped {len(index)} reports ({counts['skipped']} inputs skipped: not a report "
              f"or unreadable) to {a.dump}; {loads} rendered")
    else:
        counts["gone"] = len(set(index) - set(cases))
        print(f"{len(cases)} inputs: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if a.timing:
        n = max(len(index) if a.dump else sum(counts.values()) - counts["skipped"], 1)
        print(f"rendering: {spent:.1f} s in all, {spent / n * 1e3:.1f} ms per report")
    return 1 if (a.compare and (counts["differ"] or counts["gone"])) else 0


if __name__ == "__main__":
    sys.exit(main())
