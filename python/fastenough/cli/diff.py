"""`fastenough diff A B`: what changed between two runs (or two traces).

A and B are run directories (.fastenough/runs/<id>/: report.json and trace/),
folders of traces, or trace files (.json / .json.gz). Two run directories are
compared side by side (phases, steady throughput, step median, memory peaks,
findings) and, when both hold a profiler trace, their traces are diffed: CPU
ops and device activity (kernels, memcpy, memset) matched by kind, name and
input shapes. The trace diff is C++ (cpp/fastenough/diff/).

JSON schema `fastenough.diff/1` (docs/diff.md has it field by field):
  {"schema": "fastenough.diff/1",
   "a"/"b": {"path", "kind": "run" | "traces", "traces": [str]},
   "run": null | {"phases": [{"name", "a", "b", "ratio", "delta_ns"}],
            "throughput": {"steady_steps_per_s" | "items_per_s" | "tokens_per_s":
                           {"a", "b", "ratio"}},
            "steady_step_median_ns", "steady_steps", "measurement": {"a", "b", "ratio"},
            "memory": {"rss_max_bytes" | "alloc_peak_bytes" | "reserved_peak_bytes" |
                       "device_used_max_bytes": {"a", "b", "ratio"}},
            "findings": [{"status": "new" | "gone" | "changed" | "same", "code",
                          "location", "title_a", "title_b", "verdict_a", "verdict_b",
                          "saving_per_step_ns_a", "saving_per_step_ns_b"}]},
   "trace": null | {"basis": "per_steady_step" | "total", "cpu_ops",
            "steady_steps": {"a", "b"}, "paths_a", "paths_b",
            "threshold": {"min_rel", "min_abs_ns"},
            "rows": [{"status": "added" | "removed" | "changed", "kind": "cpu_op" |
                      "kernel" | "memcpy" | "memset", "name", "input_dims" (null | str),
                      "a"/"b": null | {"calls", "time_ns"}, "delta_calls", "delta_time_ns",
                      "ratio", "calls_changed", "time_changed"}],
            "unchanged": {"rows", "a_time_ns", "b_time_ns"},
            "totals": {kind: {"a_time_ns", "b_time_ns", "rows_a", "rows_b"}}},
   "notes": [str]}
"""

from __future__ import annotations

import argparse
import json
import sys

from fastenough.errors import UsageError
from fastenough.render.escape import visible

HELP = "what changed between two runs or two traces (phases, throughput, findings, ops, kernels)"

EPILOG = """\
examples:
  fastenough diff .fastenough/runs/RUN_A .fastenough/runs/RUN_B
  fastenough diff before.pt.trace.json.gz after.pt.trace.json.gz --top 40
  fastenough diff RUN_A RUN_B --md > diff.md
  fastenough diff RUN_A RUN_B --json | jq '.trace.rows[] | select(.status == "removed")'

The trace diff is per steady step when both sides have ProfilerStep windows
(the first of three or more steps is warm-up and left out; device activity
counts in the step that launched it), otherwise totals over each trace. CPU ops
are counted at every nesting level with inclusive time. A row is "changed"
when its calls differ, or its time moved by at least --min-change of the
larger side and at least --min-change-us; the rest is summarised as
"N unchanged". Rows are ordered by the size of the time change.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help=HELP, description=HELP, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="run directory, trace folder or trace file (before)")
    p.add_argument("b", metavar="B", help="run directory, trace folder or trace file (after)")
    p.add_argument("--top", type=int, default=20, metavar="N",
                   help="trace rows to print (default 20; --json always lists every row)")
    p.add_argument("--min-change", type=float, default=0.05, metavar="SHARE",
                   help="smallest relative time change that counts (default 0.05 = 5%%)")
    p.add_argument("--min-change-us", type=float, default=1.0, metavar="US",
                   help="smallest absolute time change that counts, in µs, per step on the "
                        "per-step basis (default 1)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print fastenough.diff/1 JSON")
    fmt.add_argument("--md", action="store_true", help="print Markdown")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from fastenough.diff import document, render
    from fastenough.diff.inputs import resolve_side

    if args.top < 1:
        raise UsageError("--top must be at least 1")
    if args.min_change < 0 or args.min_change_us < 0:
        raise UsageError("--min-change and --min-change-us must not be negative")
    from fastenough.cli.run_ref import resolve_run_ref

    a, b = resolve_side(resolve_run_ref(args.a)), resolve_side(resolve_run_ref(args.b))
    doc = document.build(a, b, args.min_change, args.min_change_us * 1000.0)
    if args.json:
        for note in doc["notes"]:
            sys.stderr.write(f"fastenough: {visible(note)}\n")
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.md:
        sys.stdout.write(render.markdown(doc, args.top))
    else:
        render.print_terminal(doc, args.top)
    return 0
