"""What torch.compile did in this process: compile time, compiles, recompiles.

Read from dynamo's own counters, only when dynamo was imported (a program that
never compiles pays nothing), and never by importing it.
"""

from __future__ import annotations

import sys


def _not_compiling() -> bool:
    return False


# torch.compile traces module hooks into the compiled graph. Hooks test this first:
# dynamo folds torch.compiler.is_compiling() to True while tracing, so the hook
# body never enters a graph (no graph break, no guard on the agent's counters,
# no recompilation); in eager mode it is one cheap call. Set at torch import.
is_compiling = _not_compiling


def bind(torch) -> None:
    global is_compiling
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and hasattr(compiler, "is_compiling"):
        is_compiling = compiler.is_compiling


def compiling() -> bool:
    return is_compiling()


def dynamo_compiled() -> bool:
    """True once torch.compile compiled something (its guards then check hooks)."""
    utils = sys.modules.get("torch._dynamo.utils")
    try:
        return bool(utils and utils.compilation_time_metrics.get("_compile.compile_inner"))
    except Exception:  # noqa: BLE001
        return True  # unknown: assume compiled, and keep the hooks as they are


def compile_info() -> dict:
    info = {"compile_time_ns": None, "compiles": None, "recompiles": None}
    utils = sys.modules.get("torch._dynamo.utils")
    if utils is None:
        return info  # dynamo never imported: nothing compiled
    try:
        metrics = getattr(utils, "compilation_time_metrics", {})
        inner = list(metrics.get("_compile.compile_inner", []))
        info["compile_time_ns"] = int(sum(inner) * 1e9)
        info["compiles"] = len(inner)
    except Exception:  # noqa: BLE001, S110
        pass
    try:
        # convert_frame counts compiles per frame (code object); every compile of
        # a frame after its first is a recompile (guard failure).
        convert = sys.modules.get("torch._dynamo.convert_frame")
        per_frame = getattr(convert, "FRAME_COMPILE_COUNTER", None)
        if per_frame is not None:
            info["recompiles"] = int(sum(max(0, c - 1) for c in per_frame.values()
                                         if isinstance(c, int)))
        elif "recompiles" in utils.counters:
            info["recompiles"] = int(sum(utils.counters["recompiles"].values()))
    except Exception:  # noqa: BLE001, S110
        pass
    return info
