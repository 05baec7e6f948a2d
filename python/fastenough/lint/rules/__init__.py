"""Every lint rule, one module per family, and the codes they report.

Adding a rule: write a `check(ctx)` that yields `Hit`s in the module of its
family (or a new module listed in `_FAMILIES`), give it a `Rule` with its code,
a unique name, a one-line summary and the --explain text, and add positive and
negative snippets to tests/python/test_lint_rules.py. Codes are stable: add new
ones, never rename. Reuse a runtime code (cpp/fastenough/findings/catalog.cc)
only where the meaning is the same, and list it in CODES with runtime=True.
"""

from __future__ import annotations

from fastenough.lint.rules import (
    attention,
    dynamic_shapes,
    eval_mode,
    grouped_gemm,
    hf_outputs,
    host_sync,
    layout,
    logits,
    optimizer,
    projections,
    transfers,
)
from fastenough.lint.rules.base import Code, Rule

_FAMILIES = (host_sync, dynamic_shapes, transfers, eval_mode, hf_outputs, logits,
             grouped_gemm, projections, layout, optimizer, attention)

ALL_RULES: list[Rule] = [r for family in _FAMILIES for r in family.RULES]

# The codes lint reports. runtime=True: `fastenough run` / `analyze` report the
# same code from measurements, and `fastenough explain CODE` covers that side.
CODES: dict[str, Code] = {c.code: c for c in (
    Code("sync-in-loop", "Host waits for the device inside a loop", True),
    Code("transfer-in-loop", "Host-device transfer in every iteration", True),
    Code("pageable-memcpy", "Copies from pageable host memory", True),
    Code("dataloader-bound", "Batches loaded in the main process", True),
    Code("autograd-in-eval", "Autograd on in an evaluation forward", True),
    Code("train-mode-in-eval", "Training-mode layers during evaluation", True),
    Code("kv-cache-in-scoring", "Key/value cache built in a scoring forward", True),
    Code("unused-outputs", "Hidden states or attentions requested and dropped", True),
    Code("full-vocab-logits", "Normalised logits for every position, few used", True),
    Code("serial-small-gemm", "Small matmuls in a Python loop (grouped GEMM candidate)", True),
    Code("unfused-projections", "Separate projections of one input", True),
    Code("transpose-contiguous", "Layout copy after transpose/permute in forward", False),
    Code("optimizer-not-fused", "Optimizer without foreach/fused on a device", False),
    Code("manual-attention", "Attention written by hand (SDPA candidate)", False),
)}

assert {r.code for r in ALL_RULES} == set(CODES), "every rule's code is listed in CODES"
assert len({r.name for r in ALL_RULES}) == len(ALL_RULES), "rule names are unique"


def rules_for(code: str) -> list[Rule]:
    return [r for r in ALL_RULES if r.code == code]
