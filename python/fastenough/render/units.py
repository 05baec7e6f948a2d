"""Human units for durations, bytes and shares, shared by every renderer.

fmt_ns, fmt_bytes and fmt_share are the core's formatting (cpp/fastenough/
util/units.h, bound as _core.format_duration / format_bytes / format_share):
the finding texts the core writes and what the renderers print say the same
value the same way. The rule, in short: durations in the largest unit the
printed value reaches, "512 ns", "500.0 µs", "1.23 ms", "12.35 s", "2.5 min"
(999.95 µs is "1.00 ms"); bytes in binary units, "1023 B", "1.0 KiB",
"1.5 MiB"; shares as a percentage with one decimal, "31.2%". None, NaN or an
infinity is "-", and so is a negative byte count or share.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fastenough import _core

if TYPE_CHECKING:
    from fastenough.report.model import FindingSaving, Location


def _absent(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def fmt_ns(ns) -> str:
    """1234567 -> '1.23 ms'. None -> '-'."""
    if _absent(ns):
        return "-"
    return _core.format_duration(float(ns))


def fmt_bytes(b) -> str:
    """1536 -> '1.5 KiB'. None or negative -> '-'."""
    if _absent(b):
        return "-"
    return _core.format_bytes(float(b))


def fmt_share(x) -> str:
    """0.312 -> '31.2%'. None or negative -> '-'."""
    if _absent(x):
        return "-"
    return _core.format_share(float(x))


def fmt_num(x, digits: int = 1) -> str:
    if _absent(x):
        return "-"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


def share(part, whole) -> float | None:
    if _absent(part) or _absent(whole) or not whole:
        return None
    return part / whole


def fmt_evidence_value(key: str, v) -> str:
    """Evidence keys carry their unit: *_ns, *_bytes, *_share, *_pct."""
    if isinstance(v, str):
        return v
    if key.endswith("_ns"):
        return fmt_ns(v)
    if key.endswith("_bytes"):
        return fmt_bytes(v)
    if key.endswith("_share"):
        return fmt_share(v)
    if key.endswith("_pct"):
        return f"{v:.1f}%"
    if isinstance(v, float):
        return f"{v:,.3g}"
    return f"{v:,}"


def fmt_where(where: Location) -> str:
    """train.py:29 (forward); a function known only by its def says so:
    train.py, in forward (def at line 18); a library frame below the user's
    line is named after it: ..., inside torch/optim/lbfgs.py: step."""
    if where.file:
        if where.line:
            loc = f"{where.file}:{where.line}"
            if where.function:
                loc += f" ({where.function})"
        elif where.function:
            loc = f"{where.file}, in {where.function}"
            if where.def_line:
                loc += f" (def at line {where.def_line})"
        else:
            loc = where.file
        if where.inside:
            loc += f", inside {where.inside}"
        return loc
    parts = []
    if where.op:
        parts.append(where.op)
    if where.kernel:
        parts.append(f"kernel {shorten(where.kernel, 70)}")
    if where.stream not in (-1, None):
        parts.append(f"stream {where.stream}")
    if where.rank not in (-1, None):
        parts.append(f"rank {where.rank}")
    return ", ".join(parts) or "-"


def shorten(name: str, width: int = 60) -> str:
    """Kernel names are long C++ templates: keep the head, mark the cut."""
    if len(name) <= width:
        return name
    return name[: width - 1] + "…"


def fmt_saving(saving: FindingSaving | None) -> str:
    if saving is None:
        return "-"
    if saving.per_step_ns == 0 and saving.share_of_step in (0, 0.0):
        return "none of its own: it says what bounds the step"
    bits = []
    if saving.per_step_ns not in (None, -1):
        bits.append(f"{fmt_ns(saving.per_step_ns)}/step")
    if saving.share_of_step not in (None, -1):
        bits.append(f"({fmt_share(saving.share_of_step)} of a step)")
    if not bits and saving.total_ns not in (None, -1):
        bits.append(fmt_ns(saving.total_ns) + " total")
    if not bits:
        return "-"
    # ≤: an upper bound from measured time; ≈: an estimate that may be exceeded.
    prefix = "≤ " if saving.upper_bound else "≈ "
    return prefix + " ".join(bits)
