"""Host syncs inside loops: the host waits for the device once per iteration.

`.item()`, `.cpu()`, `.tolist()`, `.numpy()`, `float(t)`, `bool(t)` / `if t`,
`print(t)` and explicit `synchronize()` / `empty_cache()` each stall the host
until the device has finished everything queued so far, so the device then
idles while the host catches up. Outside loops they are harmless (a result read
once at the end).
"""

from __future__ import annotations

import ast

from fastenough.lint.kinds import NOT_A_DEVICE_TENSOR, TENSOR
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

_SYNC_METHODS = {"item", "cpu", "tolist", "numpy"}
_EXPLICIT = {"synchronize", "empty_cache"}

_EXPLAIN = """\
Each of these reads a device value on the host, so the host blocks until the
device has run everything queued before it: .item(), .cpu(), .tolist(),
.numpy(), float(t)/int(t)/bool(t), `if t:` / `while t:` / `assert t`, print(t),
torch.cuda.synchronize(), torch.cuda.empty_cache(). Inside the step loop this
happens every iteration, and the device idles while the host prepares the next
launches. Keep values on the device (accumulate metrics in a tensor, stack
per-step results) and read them once after the loop; call empty_cache() only at
phase boundaries. Keep the syncs that correctness needs (early stopping on a
value, data-dependent control flow) and judge the rest on the timeline.
The rule fires inside for/while bodies and comprehensions, and in functions of
the same file that a loop calls; it stays quiet when the receiver is visibly a
Python number, a list, a numpy array or a tensor built on the CPU."""


def _where(ctx: ModuleContext, site) -> str:
    line = ctx.scope.loop_line(site)
    how = "called from the loop" if ctx.scope.via_call(site) else "inside the loop"
    return f"{how} at line {line}"


def check_methods(ctx: ModuleContext):
    scope = ctx.scope
    for site in scope.calls:
        call = site.node
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in _SYNC_METHODS and not call.args:
            receiver = func.value
            what = f".{func.attr}()"
        elif (isinstance(func, ast.Name) and func.id in ("float", "int", "bool")
              and len(call.args) == 1):
            receiver = call.args[0]
            what = f"{func.id}(tensor)"
            if scope.env(site.function).kind(receiver) != TENSOR:
                continue  # float(x) of an unknown x is usually a Python number
        else:
            continue
        if scope.loop_line(site) is None:
            continue
        if scope.env(site.function).kind(receiver) in NOT_A_DEVICE_TENSOR:
            continue
        yield Hit(call, f"{what} {_where(ctx, site)} waits for the device every iteration")


def check_tests(ctx: ModuleContext):
    scope = ctx.scope
    for site in scope.tests:
        if scope.loop_line(site) is None:
            continue
        if scope.env(site.function).kind(site.node) == TENSOR:
            yield Hit(site.node, f"a tensor used as a condition {_where(ctx, site)} "
                                 "reads its value on the host every iteration")


def check_print(ctx: ModuleContext):
    scope = ctx.scope
    for site in scope.calls:
        call = site.node
        if not (isinstance(call.func, ast.Name) and call.func.id == "print"):
            continue
        if scope.loop_line(site) is None:
            continue
        env = scope.env(site.function)
        values = []
        for a in call.args:
            if isinstance(a, ast.JoinedStr):
                values += [v.value for v in a.values if isinstance(v, ast.FormattedValue)]
            else:
                values.append(a)
        if any(env.kind(v) == TENSOR for v in values):
            yield Hit(call, f"print(tensor) {_where(ctx, site)} copies the value to the host "
                            "every iteration")


def check_explicit(ctx: ModuleContext):
    scope = ctx.scope
    for site in scope.calls:
        func = site.node.func
        if not (isinstance(func, ast.Attribute) and func.attr in _EXPLICIT):
            continue
        if scope.loop_line(site) is None:
            continue
        yield Hit(site.node, f".{func.attr}() {_where(ctx, site)} stalls the host every "
                             "iteration")


RULES = [
    Rule("sync-in-loop", "sync-method-in-loop",
         ".item()/.cpu()/.tolist()/.numpy()/float(t) inside a loop", _EXPLAIN, check_methods),
    Rule("sync-in-loop", "tensor-condition-in-loop",
         "a tensor as an if/while/assert condition inside a loop", _EXPLAIN, check_tests),
    Rule("sync-in-loop", "print-tensor-in-loop", "print(tensor) inside a loop", _EXPLAIN,
         check_print),
    Rule("sync-in-loop", "explicit-sync-in-loop",
         "synchronize() or empty_cache() inside a loop", _EXPLAIN, check_explicit),
]
