// Hugging Face forward keywords that make a scoring call compute what it drops:
// use_cache=True (explicit, or a causal LM's default) and output_hidden_states /
// output_attentions that nothing reads. Port of
// python/fastenough/lint/rules/hf_outputs.py.
#include <string>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/eval_function.h"
#include "fastenough/lint/rules/families.h"
#include "fastenough/pysrc/syntax_tree_children.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kExplainCache = R"(use_cache=True in a forward that scores (log-likelihoods, classification,
perplexity) builds the key/value cache of every layer, allocates it and returns
it, though nothing will ever decode from it. Pass use_cache=False to scoring
forwards (generate() keeps its cache; it is not checked). Shared with the runtime
check kv-cache-in-scoring, which sees the past_key_values actually returned.)";

constexpr std::string_view kExplainDefaultCache = R"(Hugging Face causal language models default to use_cache=True (config.use_cache):
a forward without the keyword builds and returns the key/value cache of every
layer. In an evaluation function (scoring, perplexity, classification) nothing
decodes from it. Pass use_cache=False to the scoring forward. The rule fires in
files that load a causal LM (AutoModelForCausalLM, *ForCausalLM), on a model call
inside an evaluation function (see autograd-in-eval for how those are found)
that passes neither use_cache nor **kwargs. Shared with the runtime check
kv-cache-in-scoring.)";

constexpr std::string_view kExplainOutputs = R"(output_hidden_states=True / output_attentions=True make the model keep and
return every layer's hidden states or attention maps; attention maps also force
the slow eager attention path instead of scaled_dot_product_attention. The rule
fires when the function that makes the call never reads .hidden_states /
.attentions (or ["hidden_states"] / ["attentions"]). Drop the keyword. Shared with
the runtime check unused-outputs.)";

// Generation needs its cache; only forwards (scoring) are checked.
bool IsGenerateCall(const Node& call) {
  return IsAnyOf(MethodName(&call),
                 {"generate", "greedy_search", "beam_search", "sample", "contrastive_search"});
}

// The function that makes the call (the module when none) mentions `.attr` or
// the string "attr" somewhere.
bool EnclosingReads(const ModuleContext& ctx, const Site& site, std::string_view attr) {
  const Node* scope = site.function != nullptr ? site.function->node : &ctx.tree();
  return pysrc::AnyInTree(scope, [attr](const Node* n) {
    return (n->is(Kind::kAttribute) && n->name == attr) || IsStrConst(n, attr);
  });
}

void CheckCache(const ModuleContext& ctx, std::vector<Hit>& out) {
  for (const Site& site : ctx.scope().calls()) {
    if (IsGenerateCall(*site.node)) continue;
    for (const Node* k : site.node->keywords()) {
      if (k->name == "use_cache" && IsTrue(k->value())) {
        out.push_back({k, "use_cache=True in a forward call: the key/value cache is built "
                          "and dropped; pass use_cache=False for scoring"});
      }
    }
  }
}

void CheckDefaultCache(const ModuleContext& ctx, std::vector<Hit>& out) {
  if (ctx.text().find("ForCausalLM") == std::string_view::npos) return;
  for (const Function& fn : ctx.scope().functions()) {
    if (!IsEvalFunction(ctx, fn)) continue;
    for (const Site* site : fn.calls) {
      const Node& call = *site->node;
      if (!ctx.IsModelCall(call) || HasStarKwargs(call)) continue;
      if (Kwarg(call, "use_cache") != nullptr) continue;
      out.push_back({&call, "`" + std::string(fn.name) +
                                "` calls a causal LM without use_cache=False: it builds the "
                                "key/value cache by default"});
    }
  }
}

void CheckOutputs(const ModuleContext& ctx, std::vector<Hit>& out) {
  for (const Site& site : ctx.scope().calls()) {
    if (IsGenerateCall(*site.node)) continue;
    for (const Node* k : site.node->keywords()) {
      const bool hidden = k->name == "output_hidden_states";
      if (!(hidden || k->name == "output_attentions") || !IsTrue(k->value())) continue;
      const std::string_view attr = hidden ? "hidden_states" : "attentions";
      if (EnclosingReads(ctx, site, attr)) continue;
      out.push_back({k, std::string(k->name) + "=True but this function never reads ." +
                            std::string(attr) + ": every layer's output is kept and dropped"});
    }
  }
}

constexpr Rule kHfOutputRules[] = {
    {"kv-cache-in-scoring", "use-cache-in-forward", "use_cache=True in a forward call",
     kExplainCache, CheckCache},
    {"kv-cache-in-scoring", "causal-lm-cache-by-default",
     "a causal LM scoring forward without use_cache=False", kExplainDefaultCache,
     CheckDefaultCache},
    {"unused-outputs", "unused-hidden-states-or-attentions",
     "output_hidden_states/output_attentions=True and never read", kExplainOutputs,
     CheckOutputs},
};

}  // namespace

std::span<const Rule> HfOutputRules() { return kHfOutputRules; }

}  // namespace fastenough::lint::rules
