"""The standalone script `fastenough replay` writes for one hot op: it rebuilds
the op's inputs at the recorded shapes, dtypes and strides on the recorded
device, checks `candidate()` against the op itself on the same inputs, and
times both with `fastenough.time` (plain, dummy-queued and graph windows where
the device is a GPU; plain on the CPU).

The script is the user's to edit: `candidate()` is where a fused or re-tiled
kernel goes. It imports only torch and fastenough.
"""

from __future__ import annotations

from fastenough.replay.plan import Argument, CallPlan, TensorArg, contiguous_strides


def _tensor_source(t: TensorArg) -> str:
    strides = t.strides if t.strides is not None else contiguous_strides(t.shape)
    return f"make_tensor({list(t.shape)}, {list(strides)}, torch.{t.dtype}, device, gen)"


def _value_source(a: Argument) -> str:
    if isinstance(a.value, TensorArg):
        return _tensor_source(a.value)
    if isinstance(a.value, list):
        inner = ",\n            ".join(_tensor_source(t) for t in a.value)
        return f"[\n            {inner},\n        ]"
    return str(a.value)


def _call_lines(plan: CallPlan) -> tuple[list[str], list[str]]:
    """Positional and keyword argument lines of make_inputs(): positional until
    the first argument left at its default, keywords after it."""
    args, kwargs, by_keyword = [], [], False
    for a in plan.arguments:
        if a.source == "default":
            by_keyword = True
            continue
        note = ""
        if isinstance(a.value, list) and any(t.dtype_guessed for t in a.value):
            note = "  # dtype not recorded for a tensor list: the op's first tensor's"
        if a.kwarg_only or by_keyword:
            kwargs.append(f"        {a.name!r}: {_value_source(a)},{note}")
        else:
            args.append(f"        {_value_source(a)},  # {a.name}{note.replace('  #', ';')}")
    return args, kwargs


TEMPLATE = '''\
#!/usr/bin/env python3
"""Replay of {op} as the traced program ran it (written by `fastenough replay`).

Recorded: {count} call(s) with these inputs, {total} on the host in all{device_time}
(trace: {trace}).
Inputs: {inputs}

    python {file}                 # check candidate() against the op, then time both
    python {file} --device cpu    # on another device than the recorded {recorded_device}

Edit candidate() to try another kernel (fused, re-tiled, another layout): the
check compares its output with the op's own on the same inputs, and the timing
puts the two side by side. Inputs are random at the recorded shapes, dtypes and
strides (floating point: normal; integers and booleans: zeros, valid as
indices): give make_inputs() real values where the op's speed depends on them.
"""

import argparse
import sys

import torch

import fastenough
from fastenough.measure.abba import compare_outputs

OP = {target}
OP_NAME = {op!r}
RECORDED_DEVICE = {recorded_device!r}
# fastenough.time's own keywords: an op keyword of the same name goes through a lambda.
TIME_OPTIONS = {{"n", "rounds", "window", "warmup", "flush_l2", "device"}}


def make_tensor(shape, strides, dtype, device, gen):
    """A tensor of `shape` with exactly `strides` (a view of a buffer just large
    enough), random floats or zeros."""
    size = 1 + sum((d - 1) * s for d, s in zip(shape, strides) if d > 0) if all(shape) else 0
    if dtype.is_floating_point or dtype.is_complex:
        kind = torch.complex64 if dtype.is_complex else torch.float32
        buf = torch.randn(size, generator=gen, dtype=kind).to(dtype)
    else:
        buf = torch.zeros(size, dtype=dtype)
    return buf.to(device).as_strided(shape, strides)


def make_inputs(device):
    gen = torch.Generator().manual_seed(0)
    args = [
{args}
    ]
    kwargs = {kwargs}
    return args, kwargs


def reference(*args, **kwargs):
    return OP(*args, **kwargs)


def candidate(*args, **kwargs):
    # Replace with the kernel to try; it gets the same inputs as the op.
    return OP(*args, **kwargs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None,
                        help=f"where to run (default: {{RECORDED_DEVICE}}, the recorded device)")
    parser.add_argument("--n", type=int, default=100, help="calls per timed round")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per window")
    parser.add_argument("--atol", type=float, default=None)
    parser.add_argument("--rtol", type=float, default=None)
    opts = parser.parse_args()
    device = opts.device or RECORDED_DEVICE
    if device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit(f"the op ran on {{device}}, and this machine has no CUDA device: "
                 "--device cpu replays it on the CPU")
    args, kwargs = make_inputs(device)
    expected = reference(*args, **kwargs)
    args, kwargs = make_inputs(device)  # fresh inputs: the op may write to its own
    got = candidate(*args, **kwargs)
    agree, detail = compare_outputs(expected, got, opts.atol, opts.rtol)
    print(f"candidate {{'agrees with' if agree else 'DIFFERS from'}} {{OP_NAME}}: {{detail}}")
    window = "all" if device.startswith("cuda") else "plain"
    for label, fn in (("op", reference), ("candidate", candidate)):
        args, kwargs = make_inputs(device)
        if TIME_OPTIONS & kwargs.keys():  # e.g. a factory op's own `device`
            fn = lambda fn=fn, a=args, k=kwargs: fn(*a, **k)  # noqa: E731
            args, kwargs = [], {{}}
        result = fastenough.time(fn, *args, n=opts.n, rounds=opts.rounds, window=window,
                                 device=device, **kwargs)
        print(f"{{label:>9}}: {{result}}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
'''


def _doc(text: str) -> str:
    """Text from the trace, made safe inside the script's docstring: escapes for
    anything that is not printable ASCII, and no quote can end the string."""
    return text.encode("unicode_escape").decode("ascii").replace('"', '\\"')


def _ms(ns: int) -> str:
    from fastenough import _core  # the one duration format (util/units.h)

    return _core.format_duration(ns)


def script_text(plan: CallPlan, row: dict, *, file_name: str, trace: str,
                device: str) -> str:
    args, kwargs = _call_lines(plan)
    device_ns = int(row.get("device_ns") or 0)
    return TEMPLATE.format(
        op=plan.op, target=plan.target, count=int(row.get("count") or 0),
        total=_ms(int(row.get("total_ns") or 0)),
        device_time=f", {_ms(device_ns)} on the device" if device_ns else "",
        trace=_doc(trace), inputs=_doc(plan.describe() or "none"), file=_doc(file_name),
        recorded_device=device, args="\n".join(args),
        kwargs="{\n" + "\n".join(kwargs) + "\n    }" if kwargs else "{}")
