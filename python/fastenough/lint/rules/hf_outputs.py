"""Hugging Face forward keywords that make a scoring call compute what it drops."""

from __future__ import annotations

import ast

from fastenough.lint.astutil import has_star_kwargs, is_const
from fastenough.lint.rules.base import Hit, ModuleContext, Rule

# Generation needs its cache; only forwards (scoring) are checked.
_GENERATE = {"generate", "greedy_search", "beam_search", "sample", "contrastive_search"}

_EXPLAIN_CACHE = """\
use_cache=True in a forward that scores (log-likelihoods, classification,
perplexity) builds the key/value cache of every layer, allocates it and returns
it, though nothing will ever decode from it. Pass use_cache=False to scoring
forwards (generate() keeps its cache; it is not checked). Shared with the runtime
check kv-cache-in-scoring, which sees the past_key_values actually returned."""

_EXPLAIN_OUTPUTS = """\
output_hidden_states=True / output_attentions=True make the model keep and
return every layer's hidden states or attention maps; attention maps also force
the slow eager attention path instead of scaled_dot_product_attention. The rule
fires when the function that makes the call never reads .hidden_states /
.attentions (or ["hidden_states"] / ["attentions"]). Drop the keyword. Shared with
the runtime check unused-outputs."""


def _enclosing_reads(ctx: ModuleContext, site, attr: str) -> bool:
    scope_node = site.function.node if site.function is not None else ctx.tree
    for n in ast.walk(scope_node):
        if isinstance(n, ast.Attribute) and n.attr == attr:
            return True
        if isinstance(n, ast.Constant) and n.value == attr:
            return True
    return False


def _forward_calls(ctx: ModuleContext):
    for site in ctx.scope.calls:
        func = site.node.func
        if isinstance(func, ast.Attribute) and func.attr in _GENERATE:
            continue
        yield site


def check_cache(ctx: ModuleContext):
    for site in _forward_calls(ctx):
        for k in site.node.keywords:
            if k.arg == "use_cache" and is_const(k.value, True):
                yield Hit(k, "use_cache=True in a forward call: the key/value cache is built "
                             "and dropped; pass use_cache=False for scoring")


_EXPLAIN_DEFAULT_CACHE = """\
Hugging Face causal language models default to use_cache=True (config.use_cache):
a forward without the keyword builds and returns the key/value cache of every
layer. In an evaluation function (scoring, perplexity, classification) nothing
decodes from it. Pass use_cache=False to the scoring forward. The rule fires in
files that load a causal LM (AutoModelForCausalLM, *ForCausalLM), on a model call
inside an evaluation function (see autograd-in-eval for how those are found)
that passes neither use_cache nor **kwargs. Shared with the runtime check
kv-cache-in-scoring."""


def check_default_cache(ctx: ModuleContext):
    if "ForCausalLM" not in ctx.text:
        return
    from fastenough.lint.rules.eval_mode import is_eval_function

    for fn in ctx.scope.functions:
        if not is_eval_function(ctx, fn):
            continue
        for site in fn.calls:
            call = site.node
            if not ctx.is_model_call(call) or has_star_kwargs(call):
                continue
            if any(k.arg == "use_cache" for k in call.keywords):
                continue
            yield Hit(call, f"`{fn.name}` calls a causal LM without use_cache=False: it "
                            "builds the key/value cache by default")


def check_outputs(ctx: ModuleContext):
    for site in _forward_calls(ctx):
        for k in site.node.keywords:
            if k.arg in ("output_hidden_states", "output_attentions") and is_const(k.value, True):
                attr = "hidden_states" if k.arg == "output_hidden_states" else "attentions"
                if not _enclosing_reads(ctx, site, attr):
                    yield Hit(k, f"{k.arg}=True but this function never reads .{attr}: "
                                 "every layer's output is kept and dropped")


RULES = [
    Rule("kv-cache-in-scoring", "use-cache-in-forward", "use_cache=True in a forward call",
         _EXPLAIN_CACHE, check_cache),
    Rule("kv-cache-in-scoring", "causal-lm-cache-by-default",
         "a causal LM scoring forward without use_cache=False", _EXPLAIN_DEFAULT_CACHE,
         check_default_cache),
    Rule("unused-outputs", "unused-hidden-states-or-attentions",
         "output_hidden_states/output_attentions=True and never read", _EXPLAIN_OUTPUTS,
         check_outputs),
]

