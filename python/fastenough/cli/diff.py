"""`fastenough diff A B`: what changed between two runs (or two traces).

A and B are run directories (.fastenough/runs/<id>/: report.json, steps.jsonl
and trace/), report.json files, folders of traces, or trace files (.json /
.json.gz). Two reports are compared side by side (phases, steady throughput,
step median, time per item, memory peaks, findings) and, when both sides hold a
profiler trace, their traces are diffed: CPU ops and device activity (kernels,
memcpy, memset) matched by kind and name, then by input shapes. The trace diff
and the regression gate's statistic are C++ (cpp/fastenough/diff/).

--max-regression PCT adds the gate: exit 1 when B's steady time per item is
slower than A's by more than PCT beyond the runs' own spread, 2 when the runs
are not comparable (diff/gate.py).

JSON schema `fastenough.diff/1` (docs/diff.md has it field by field):
  {"schema": "fastenough.diff/1",
   "a"/"b": {"path", "kind": "run" | "traces", "traces": [str]},
   "run": null | {"phases": [{"name", "a", "b", "ratio", "delta_ns"}],
            "throughput": {"steady_steps_per_s" | "items_per_s" | "tokens_per_s":
                           {"a", "b", "ratio"}},
            "steady_step_median_ns", "steady_time_per_item_ns", "steady_steps",
            "measurement": {"a", "b", "ratio"},
            "memory": {"rss_max_bytes" | "alloc_peak_bytes" | "reserved_peak_bytes" |
                       "device_used_max_bytes": {"a", "b", "ratio"}},
            "findings": [{"status": "new" | "gone" | "changed" | "same", "code",
                          "location", "title_a", "title_b", "verdict_a", "verdict_b",
                          "saving_per_step_ns_a", "saving_per_step_ns_b"}]},
   "trace": null | {"basis": "per_steady_step" | "total", "cpu_ops",
            "steady_steps": {"a", "b"}, "paths_a", "paths_b",
            "per_item": null | {"items_per_step_a", "items_per_step_b"},
            "threshold": {"min_rel", "min_abs_ns"},
            "rows": [{"status": "added" | "removed" | "changed", "kind": "cpu_op" |
                      "kernel" | "memcpy" | "memset", "name", "input_dims" (null | str),
                      "input_dims_a", "input_dims_b": [str], "shapes_changed", "entirely",
                      "a"/"b": null | {"calls", "time_ns", "time_per_item_ns"},
                      "delta_calls", "delta_time_ns", "ratio", "delta_time_per_item_ns",
                      "ratio_per_item", "calls_changed", "time_changed"}],
            "unchanged": {"rows", "a_time_ns", "b_time_ns"},
            "totals": {kind: {"a_time_ns", "b_time_ns", "a_time_per_item_ns",
                              "b_time_per_item_ns", "rows_a", "rows_b"}},
            "roofline": [{"op", "input_dims", "input_types" (null | str),
                          "a"/"b": null | {"calls", "device_ns", "time_at_roof_ns",
                                           "pct_of_roof", "bound", "device", "dtype"}}]},
   "gate": null | {"status": "regression" | "ok" | "not-comparable", "max_regression_pct",
            "confidence", "unit": "item" | "step",
            "a"/"b": {"source": "steps.jsonl" | "report", "rank", "mode", "steady_steps",
                      "median_ns", "log_se"},
            "ratio", "low", "high", "slowdown_pct", "slowdown_low_pct", "slowdown_high_pct",
            "min_steady_steps", "protocol_changes": [{"field", "a", "b", "blocking", "why"}],
            "reasons": [str], "verdict"},
   "notes": [str]}
"""

from __future__ import annotations

import argparse
import sys

from fastenough.errors import EXIT_OK, EXIT_REGRESSION, NotComparableError, UsageError
from fastenough.inputs.numbers import finite_float, whole_number
from fastenough.outputs import json_output
from fastenough.visible import visible

HELP = "what changed between two runs or two traces (phases, throughput, findings, ops, kernels)"
DESCRIPTION = """\
What changed between two runs or two traces: phases, throughput, findings, ops,
kernels."""

EPILOG = """\
examples:
  fastenough diff .fastenough/runs/RUN_A .fastenough/runs/RUN_B
  fastenough diff before.pt.trace.json.gz after.pt.trace.json.gz --top 40
  fastenough diff RUN_A RUN_B --md > diff.md
  fastenough diff RUN_A RUN_B --json | jq '.trace.rows[] | select(.entirely)'
  fastenough diff baseline/report.json RUN_B --max-regression 10

The trace diff is per steady step when both sides have ProfilerStep windows
(the first of three or more steps is warm-up and left out; device activity
counts in the step that launched it), otherwise totals over each trace; per
item too when both run directories count their items per step (a larger batch
then does not read as every op being slower). CPU ops are counted at every
nesting level with inclusive time. Ops are matched by name, then by input
shapes: an op whose shapes changed (a batch-size change) is one "changed" row
with both sides' shapes; ops gone entirely (in A, no row of that name in B)
are listed first. A row is "changed" when its calls or shapes differ, or its
time moved by at least --min-change of the larger side and at least
--min-change-us; the rest is summarised as "N unchanged".

regression gate (--max-regression PCT, for CI):
  The median steady time per item (per step when a side does not count items)
  of B over A's, with an interval from each run's own spread (order
  statistics of the steady steps in steps.jsonl; from p10/p90 for a
  report.json alone). Exit 1 ("regression") when the interval's lower end of
  the slowdown exceeds PCT; 0 ("ok") otherwise; 2 ("not comparable") when the
  batch size, device, world size, headline mode or a field declared with
  fastenough.protocol() differ, or a side has fewer than 10 steady steps. The
  interval covers the steps of these two runs, not the run-to-run noise of the
  machine: pick PCT above it (measure it by gating a run against a rerun).

  # .github/workflows/perf.yml: both runs on one machine (docs/diff.md)
  - uses: actions/checkout@v4
    with: {ref: "${{ github.base_ref }}"}
  - run: fastenough run --quiet --run-dir base -- python bench.py
  - uses: actions/checkout@v4
    with: {clean: false}            # keep base/
  - run: fastenough run --quiet --run-dir head -- python bench.py
  - run: fastenough diff base head --max-regression 10 --json > gate.json

exit status: 0; 1 regression (with --max-regression); 2 usage error,
unreadable input, or runs not comparable (the message starts with
"not comparable:"; --json says gate.status "not-comparable").
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help=HELP, description=DESCRIPTION, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A",
                   help="run directory, report.json, trace folder or trace file (before)")
    p.add_argument("b", metavar="B",
                   help="run directory, report.json, trace folder or trace file (after)")
    p.add_argument("--top", type=whole_number(1), default=20, metavar="N",
                   help="trace rows to print (default 20; --json always lists every row)")
    p.add_argument("--min-change", type=finite_float(0), default=0.05, metavar="SHARE",
                   help="smallest relative time change that counts (default 0.05 = 5%%)")
    p.add_argument("--min-change-us", type=finite_float(0), default=1.0, metavar="US",
                   help="smallest absolute time change that counts, in µs, per step on the "
                        "per-step basis (default 1)")
    p.add_argument("--max-regression", type=finite_float(0), default=None, metavar="PCT",
                   help="regression gate: exit 1 when B's steady time per item is slower than "
                        "A's by more than PCT percent beyond both runs' spread, 2 when the runs "
                        "are not comparable (A and B: run directories or report.json files)")
    p.add_argument("--confidence", type=finite_float(0, 1, lo_open=True, hi_open=True),
                   default=0.95, metavar="C",
                   help="confidence of the gate's interval of B/A (default 0.95)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print fastenough.diff/1 JSON")
    fmt.add_argument("--md", action="store_true", help="print Markdown")
    p.add_argument("--device", metavar="NAME",
                   help="for the per-op roofline: the device of the traces whose "
                   "deviceProperties do not name it, on both sides (as analyze --device)")
    p.add_argument("--peaks", metavar="FILE.json",
                   help="device peaks that override or add to the built-in table (as "
                   "analyze --peaks; docs/roofline.md)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from fastenough.diff import document
    from fastenough.diff.inputs import resolve_side
    from fastenough.render import diff_text

    gating = args.max_regression is not None
    from fastenough.inputs.peaks import peak_options
    from fastenough.inputs.run_ref import resolve_run_ref

    peaks = peak_options(args.device, args.peaks)  # checked before any trace is read

    a, b = resolve_side(resolve_run_ref(args.a)), resolve_side(resolve_run_ref(args.b))
    if gating and (a.report is None or b.report is None):
        raise UsageError("--max-regression compares two runs: give two run directories or "
                         "report.json files")
    doc = document.build(a, b, args.min_change, args.min_change_us * 1000.0,
                         args.max_regression if gating else None, args.confidence,
                         peaks=peaks)
    if args.json:
        for note in doc["notes"]:
            sys.stderr.write(f"fastenough: {visible(note)}\n")
        json_output.dump(doc)
    elif args.md:
        sys.stdout.write(diff_text.markdown(doc, args.top))
    else:
        diff_text.print_terminal(doc, args.top)
    gate = doc["gate"]
    if gate is None:
        return EXIT_OK
    if gate["status"] == "not-comparable":
        raise NotComparableError(gate["verdict"])  # exit 2, the message on stderr
    if args.json:  # the text views print the verdict themselves
        sys.stderr.write(f"fastenough: {visible(gate['verdict'])}\n")
    return EXIT_REGRESSION if gate["status"] == "regression" else EXIT_OK
