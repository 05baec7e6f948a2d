"""The compute dtype of a report: the input dtype of its matmul-like ops, weighted
by their time in the trace. The reproducibility record shows it
(render/reproducibility_record.py) and `fastenough ab` compares it as a protocol
field (ab/protocol.py)."""

from __future__ import annotations

from fastenough.report.model import Report

# Ops whose input dtype is the model's compute dtype.
_MATMUL_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
               "aten::linear", "aten::convolution", "aten::_convolution",
               "aten::scaled_dot_product_attention")
_DTYPE_NAMES = {"float": "float32", "c10::Half": "float16", "c10::BFloat16": "bfloat16",
                "double": "float64", "c10::Float8_e4m3fn": "float8_e4m3fn"}


def compute_dtype(report: Report) -> str | None:
    """The input dtype of the matmul-like ops, weighted by their time in the trace."""
    return dtype_by_time((s.op, s.input_types, s.total_ns) for s in report.shapes)


def dtype_by_time(shapes) -> str | None:
    """compute_dtype of the shape rows given as (op, input_types, total_ns)."""
    weight: dict[str, float] = {}
    for op, input_types, total_ns in shapes:
        if op not in _MATMUL_OPS:
            continue
        types = [t for t in input_types or [] if t and t != "Scalar"]
        if types:
            t = types[0]
            weight[t] = weight.get(t, 0) + (total_ns or 0)
    if not weight:
        return None
    best = max(weight, key=weight.get)
    return _DTYPE_NAMES.get(best, best)
