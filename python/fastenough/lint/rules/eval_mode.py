"""Evaluation code that records autograd graphs or leaves the model in training mode."""

from __future__ import annotations

import ast
import os
import re

from fastenough.lint.astutil import dotted, is_const
from fastenough.lint.rules.base import Hit, ModuleContext, Rule
from fastenough.lint.scope import Function

# Function or decorator names that say "this evaluates": evaluate, eval_epoch,
# score_items, predict, validate, run_validation, test, inference.
EVAL_NAME = re.compile(
    r"(^|_)(eval|evaluate|evaluation|score|scoring|predict|prediction|validate|validation|"
    r"valid|val|test|infer|inference)(_|$)", re.IGNORECASE)
# Calls that make a function training code, where autograd is wanted.
_TRAINING_CALLS = {"backward", "step", "zero_grad", "train"}


def _is_test_file(path: str) -> bool:
    """test_x.py, x_test.py, conftest.py, or anything under tests/ test/ testing/."""
    base = os.path.basename(path)
    if base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py":
        return True
    parts = os.path.normpath(os.path.dirname(path)).split(os.sep)
    return any(p in ("tests", "test", "testing") for p in parts)


def _calls_eval(fn: Function) -> bool:
    return any(isinstance(s.node.func, ast.Attribute) and s.node.func.attr == "eval"
               and not s.node.args for s in fn.calls)


def is_eval_function(ctx: ModuleContext, fn: Function) -> bool:
    if fn.name == "forward" or fn.name.startswith("__"):
        return False
    if fn.name.startswith("test_") and _is_test_file(ctx.path):
        return False  # a pytest/unittest test, not an evaluation
    named = bool(EVAL_NAME.search(fn.name)) or any(
        EVAL_NAME.search(part) for d in fn.node.decorator_list
        for part in dotted(d.func if isinstance(d, ast.Call) else d).split("."))
    if not (named or _calls_eval(fn)):
        return False
    for s in fn.calls:
        f = s.node.func
        if not (isinstance(f, ast.Attribute) and f.attr in _TRAINING_CALLS):
            continue
        train_false = f.attr == "train" and s.node.args and is_const(s.node.args[0], False)
        if not train_false:
            return False
    return True


_EXPLAIN_AUTOGRAD = """\
A function that evaluates (named or decorated eval/evaluate/score/predict/
validate/test/infer, or calling model.eval()) runs the model while autograd is
on: every forward records the graph and keeps the activations alive for a
backward that never comes, which costs time and memory. model.eval() does not
turn autograd off. Wrap the evaluation in `with torch.inference_mode():` (or
torch.no_grad() when the outputs are later used in autograd), or decorate the
function with @torch.inference_mode(). The rule stays quiet when the function
is decorated so, when the model call is inside such a `with`, or when every call
of the function in the same file is. Shared with the runtime check
autograd-in-eval."""

_EXPLAIN_TRAIN_MODE = """\
An evaluation loop runs the model, and nothing in the file calls model.eval()
(or .train(False)), nor loads it with from_pretrained (which returns it in eval
mode): dropout and batch-norm stay in training mode, which changes the results,
not only the speed. Call model.eval() before the evaluation loop (and
model.train() after it, when training continues). Shared with the runtime check
train-mode-in-eval, which sees the modules' actual mode."""


def check_autograd(ctx: ModuleContext):
    scope = ctx.scope
    for fn in scope.functions:
        if not is_eval_function(ctx, fn):
            continue
        for site in fn.calls:
            if ctx.is_model_call(site.node) and not scope.grad_off(site):
                yield Hit(site.node, f"`{fn.name}` evaluates the model with autograd on: "
                                     "wrap it in torch.inference_mode()")
                break


def check_train_mode(ctx: ModuleContext):
    if ctx.eval_called_names or "from_pretrained" in ctx.text:
        return
    scope = ctx.scope
    for fn in scope.functions:
        if not is_eval_function(ctx, fn):
            continue
        for site in fn.calls:
            if site.loop is not None and ctx.is_model_call(site.node):
                yield Hit(fn.node, f"`{fn.name}` runs the model in a loop and the file never "
                                   "calls model.eval(): dropout/batch-norm in training mode")
                break


RULES = [
    Rule("autograd-in-eval", "eval-without-inference-mode",
         "an evaluation function runs the model without no_grad/inference_mode",
         _EXPLAIN_AUTOGRAD, check_autograd),
    Rule("train-mode-in-eval", "eval-without-model-eval",
         "an evaluation loop with no model.eval() in the file", _EXPLAIN_TRAIN_MODE,
         check_train_mode),
]
