#!/usr/bin/env python3
"""Time the rendering a `fastenough run` does at its end, in process: from report.json's
text to report.md, report.html and the terminal report (rich, to a buffer).

Before issue 35 item 3 each renderer built its own view from the raw dict (three
build_view calls; the HTML one with the run directory's charts); since, the report is
read once into the typed Report (fastenough.report.load) and one view feeds all three.
--src DIR times the code of an earlier commit (a copy of python/, as same_renders.py
takes it), so that both sides run on the same machine, one after the other.

  python bench/bench_run_render.py RUN_DIR --src /tmp/before/python
  python bench/bench_run_render.py RUN_DIR
"""

from __future__ import annotations

import argparse
import inspect
import io
import json
import os
import statistics
import sys
import time


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir")
    p.add_argument("--src", help="import fastenough from this folder")
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--wall", action="store_true",
                   help="wall-clock time (default: the process's CPU time, which a loaded "
                   "machine disturbs less)")
    a = p.parse_args(argv)
    if a.src:
        sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__]
        sys.path.insert(0, os.path.abspath(a.src))
    from rich.console import Console

    from fastenough.render.html import view_to_html
    from fastenough.render.markdown import view_to_markdown
    from fastenough.render.terminal import print_view
    from fastenough.render.view.build import build_view
    from fastenough.report import load

    clock = time.perf_counter if a.wall else time.process_time
    typed = "dict" not in str(inspect.signature(build_view).parameters["report"].annotation)
    with open(os.path.join(a.run_dir, "report.json"), encoding="utf-8") as f:
        text = f.read()

    def terminal(view) -> str:
        buf = io.StringIO()
        print_view(view, Console(file=buf, width=120, color_system=None))
        return buf.getvalue()

    def once() -> dict[str, float]:
        t = {}
        t0 = clock()
        report = json.loads(text)
        t["json.loads"] = clock() - t0
        if typed:
            t1 = clock()
            report = load(report)
            t["load"] = clock() - t1
            t1 = clock()
            view = build_view(report, a.run_dir)
            t["build_view x1"] = clock() - t1
            t1 = clock()
            view_to_markdown(view), view_to_html(view), terminal(view)
            t["format x3"] = clock() - t1
        else:
            t1 = clock()
            views = [build_view(report), build_view(report, a.run_dir), build_view(report)]
            t["build_view x3"] = clock() - t1
            t1 = clock()
            view_to_markdown(views[0]), view_to_html(views[1]), terminal(views[2])
            t["format x3"] = clock() - t1
        t["total"] = clock() - t0
        return t

    once()  # imports, caches
    runs = [once() for _ in range(a.repeat)]
    side = "typed, one view" if typed else "raw dict, a view per renderer"
    print(f"{side}: {os.path.getsize(os.path.join(a.run_dir, 'report.json'))} B report, "
          f"{'wall' if a.wall else 'CPU'} time, {a.repeat} times: median (min)")
    for key in runs[0]:
        values = [r[key] * 1e3 for r in runs]
        print(f"  {key:14s} {statistics.median(values):7.1f} ms ({min(values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
