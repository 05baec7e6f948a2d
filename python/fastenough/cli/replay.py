"""`fastenough replay`: a standalone script per hot op of a trace, rebuilding its
inputs at the recorded shapes, dtypes and strides, checking a candidate kernel
against the op and timing both (python/fastenough/replay/)."""

from __future__ import annotations

import argparse
import os
import sys

from fastenough.errors import EXIT_OK, BadInputError, OutputError, UsageError
from fastenough.inputs.numbers import whole_number
from fastenough.visible import visible

HELP = "write a runnable script per hot op that rebuilds its inputs and times it"
DESCRIPTION = """\
Read a trace recorded with shapes (torch.profiler.profile(record_shapes=True);
`fastenough run` records them unless --trace-no-shapes), or a run directory,
and write one Python script per hot op call to DIR. Each script rebuilds the
op's inputs at the recorded shapes, dtypes and strides on the recorded device,
checks candidate() (the op itself until you edit it) against the op on the
same inputs, and times both with fastenough.time: plain, dummy-queued and
graph windows on a GPU, plain on the CPU. Try a fused or re-tiled kernel
against exactly what the model ran, then confirm the whole program with
`fastenough ab`.

The hot op calls are the trace's shape census (its hottest ops, their most
costly input shapes), in the order of their time on the device (on the host
for a CPU trace). A call replay cannot rebuild (an op torch does not have, an
argument the trace did not record) is listed with the reason. Inputs are
random (floats normal, integers zero): where an op's speed depends on the
values (indices, masks), put real ones in the script's make_inputs().

examples:
  fastenough replay trace.json.gz            # the 5 hottest calls -> replay/
  fastenough replay .fastenough/runs/3 --top 10 -o hot_ops/
  fastenough replay trace.json.gz --op addmm  # each recorded shape of one op
  python replay/replay_1_aten_addmm.py       # check and time it

exit status: 0 scripts written, 1 no hot call could be rebuilt (each one's
reason is printed), 2 usage error, unreadable input, a trace without shapes,
or a script that exists already in DIR (never overwritten: it may hold your
edits).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", metavar="TRACE_OR_RUN",
                   help="a trace file (.json / .json.gz), a trace directory or a run directory")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--op", metavar="NAME",
                       help="every recorded shape of this op (aten::addmm or addmm)")
    which.add_argument("--top", type=whole_number(1, 1000), default=5, metavar="N",
                       help="the N hottest op calls (default 5)")
    p.add_argument("-o", "--out", default="replay", metavar="DIR",
                   help="where the scripts go (default ./replay; made if missing)")
    p.add_argument("--device", default=None, metavar="DEV",
                   help="the device the scripts run on by default (default: the recorded one)")
    p.add_argument("--json", action="store_true",
                   help="print what was written as a fastenough.replay/1 document")
    p.set_defaults(func=run)


def _shape_rows(path: str, top_ops: int) -> tuple[list[dict], str]:
    """The shape census of the trace PATH names (the first, for several ranks),
    its `top_ops` hottest op names; and the name of what was read."""
    import json

    from fastenough import _core
    from fastenough.diff.inputs import resolve_side

    side = resolve_side(path)
    if not side.traces:
        raise BadInputError(f"{visible(path)}: no trace to replay from (a run directory "
                            "keeps its trace under trace/; `fastenough run` without --no-trace)")
    trace = side.traces[0]
    source = os.path.basename(trace)
    if len(side.traces) > 1:
        sys.stderr.write(f"fastenough: replaying {visible(source)}, the first of "
                         f"{len(side.traces)} traces (name one file for another rank)\n")
    rows = json.loads(_core.shape_census(trace, top_ops, 5))
    if not rows:
        raise BadInputError(
            f"{visible(path)}: the trace has no recorded input shapes, so there is nothing to "
            "rebuild. Record with torch.profiler.profile(record_shapes=True), or `fastenough "
            "run` without --trace-no-shapes")
    return rows, source


def _on_device(rows: list[dict]) -> bool:
    """The trace's ops launched device work (a GPU trace)."""
    return any(int(r.get("device_ns") or 0) > 0 for r in rows)


def _order(rows: list[dict]) -> list[dict]:
    key = "device_ns" if _on_device(rows) else "total_ns"
    return sorted(rows, key=lambda r: -int(r.get(key) or 0))


def _select(rows: list[dict], op: str | None) -> list[dict]:
    if op is None:
        return rows
    wanted = op if "::" in op else f"aten::{op}"
    chosen = [r for r in rows if r.get("op") == wanted]
    if not chosen:
        names = sorted({str(r.get("op")) for r in rows})
        raise UsageError(f"--op {visible(op)}: not among the trace's hot ops with shapes "
                         f"({', '.join(visible(n) for n in names)})")
    return chosen


def _file_name(k: int, op: str) -> str:
    safe = "".join(c if c.isalnum() else "_" for c in op.replace("::", "_")).strip("_") or "op"
    return f"replay_{k}_{safe[:60]}.py"


def run(args: argparse.Namespace) -> int:
    try:
        import torch
    except ImportError:
        raise UsageError("replay needs torch to read each op's schema: pip install torch "
                         "(or fastenough[torch])") from None
    from fastenough.replay.plan import NotReplayable, plan_call
    from fastenough.replay.script import script_text

    rows, source = _shape_rows(args.path, 100_000 if args.op else max(10, args.top))
    # The trace does not record where an op's inputs lived. An op of a trace with
    # device work ran there (an outer op such as aten::linear has no kernels of
    # its own: they are its aten::addmm's); a CPU trace's ran on the CPU.
    device = args.device or ("cuda" if _on_device(rows) else "cpu")
    rows = _select(_order(rows), args.op)
    limit = len(rows) if args.op else args.top
    written, skipped = [], []
    planned = []
    for row in rows:
        if len(planned) == limit:
            break
        try:
            planned.append((row, plan_call(row, torch)))
        except NotReplayable as e:
            skipped.append((str(row.get("op")), str(e)))
    out = args.out
    targets = [os.path.join(out, _file_name(k, plan.op)) for k, (_, plan) in
               enumerate(planned, 1)]
    for t in targets:
        if os.path.lexists(t):
            raise OutputError(f"{visible(t)} exists (it may hold your edits): name another "
                              "directory with -o, or remove it")
    if planned:
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise OutputError(f"{visible(out)}: {e.strerror or e}") from None
    for (row, plan), target in zip(planned, targets, strict=True):
        text = script_text(plan, row, file_name=os.path.basename(target), trace=source,
                           device=device)
        try:
            with open(target, "x", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise OutputError(f"{visible(target)}: {e.strerror or e}") from None
        written.append((target, plan))
    if args.json:
        from fastenough.outputs import json_output

        json_output.dump({
            "schema": "fastenough.replay/1", "trace": source,
            "out_dir": os.path.abspath(out),
            "scripts": [{"path": os.path.abspath(t), "op": plan.op, "target": plan.target,
                         "inputs": plan.describe(), "device": device,
                         "count": int(row.get("count") or 0),
                         "total_ns": int(row.get("total_ns") or 0),
                         "device_ns": int(row.get("device_ns") or 0)}
                        for (t, plan), (row, _) in zip(written, planned, strict=True)],
            "not_replayed": [{"op": op, "reason": reason} for op, reason in skipped]})
    else:
        for target, plan in written:
            print(f"{visible(target)}  {plan.op}({visible(plan.describe())})")
    for op, reason in skipped:
        sys.stderr.write(f"fastenough: not replayed: {visible(op)}: {reason}\n")
    if not written:
        sys.stderr.write("fastenough: no hot op call could be rebuilt (reasons above)\n")
        return 1
    sys.stderr.write(f"fastenough: {len(written)} script(s) in {visible(out)}: run one with "
                     f"`python {visible(targets[0])}`; edit its candidate() to try a kernel\n")
    return EXIT_OK
