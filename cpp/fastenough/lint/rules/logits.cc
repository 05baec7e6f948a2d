// log_softmax over the full vocabulary at every position, then a few positions
// picked. Port of python/fastenough/lint/rules/logits.py.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"
#include "fastenough/lint/rules/through_assignments.h"
#include "fastenough/pysrc/syntax_tree_children.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kLogitsExplain = R"(log_softmax (or softmax) over the logits of every position, followed by a gather
of the target tokens and a slice down to a few positions (the continuation of a
multiple-choice item, the last token): the LM head and the normalisation ran
over positions x vocabulary, and almost all of it is dropped. Select the
positions first (hidden[:, positions] before the LM head, logits_to_keep in
Hugging Face models, or index the logits before log_softmax), then normalise.
The rule fires when the normalised tensor feeds a gather whose result is then
sliced or indexed by a computed position, and the logits were not visibly
selected before. Shared with the runtime check full-vocab-logits.)";

bool IsNormaliser(const Node* n) {
  return n != nullptr && n->is(Kind::kCall) && IsAnyOf(MethodName(n), {"log_softmax", "softmax"});
}

bool IsSubscript(const Node* n) { return n->is(Kind::kSubscript); }

// `x[start : start + n]`, `x[idx]`: positions chosen by a computed value.
bool ComputedIndex(const Node& subscript) {
  return pysrc::AnyInTree(subscript.slice(), [](const Node* n) {
    return n->is(Kind::kName) || n->is(Kind::kCall) || n->is(Kind::kAttribute);
  });
}

void CheckLogits(const ModuleContext& ctx, std::vector<Hit>& out) {
  const ModuleAliases& aliases = ctx.scope().aliases();
  for (const Function& fn : ctx.scope().functions()) {
    std::vector<const Node*> gathers;
    for (const Site* site : fn.calls) {
      if (MethodName(site->node) == "gather") gathers.push_back(site->node);
    }
    if (gathers.empty()) continue;
    const AssignmentMap& assigns = fn.Assignments();
    // name -> the normaliser call it holds (the last one when several).
    std::unordered_map<std::string_view, const Node*> normalised;
    for (const auto& [name, values] : assigns) {
      for (const Node* v : values) {
        if (IsNormaliser(v)) normalised[name] = v;
      }
    }
    for (const Node* call : gathers) {
      const Node* source = call->func()->value();
      if (aliases.IsTorch(RootOf(Dotted(call->func()))) && !call->args().empty()) {
        source = call->args()[0];  // torch.gather(logp, dim, index)
      }
      while (source->is(Kind::kSubscript)) source = source->value();
      const Node* norm = nullptr;
      if (IsNormaliser(source)) {
        norm = source;
      } else if (source->is(Kind::kName)) {
        auto it = normalised.find(source->name);
        if (it != normalised.end()) norm = it->second;
      }
      if (norm == nullptr) continue;
      const std::string callee = Dotted(norm->func());
      const std::string_view root = RootOf(callee);
      const bool functional_form = aliases.IsTorch(root) || root == "F" || root == "nn";
      const Node* arg = !norm->args().empty() && functional_form ? norm->args()[0]
                                                                 : norm->func()->value();
      // The positions were visibly selected (an index or slice) before the
      // normalisation: nothing to report.
      if (HoldsThroughAssignments(arg, assigns, 3, IsSubscript)) continue;
      std::unordered_set<std::string_view> gathered;
      for (const auto& [name, values] : assigns) {
        for (const Node* v : values) {
          if (pysrc::AnyInTree(v, [call](const Node* n) { return n == call; })) {
            gathered.insert(name);
          }
        }
      }
      const bool picked_later = pysrc::AnyInTree(fn.node, [&](const Node* n) {
        return n->is(Kind::kSubscript) && n->value()->is(Kind::kName) &&
               gathered.count(n->value()->name) != 0 && ComputedIndex(*n);
      });
      if (picked_later) {
        out.push_back({norm, std::string(MethodName(norm)) +
                                 " over the full logits, then gather and a slice to a few "
                                 "positions: select the positions first"});
        break;
      }
    }
  }
}

constexpr Rule kLogitsRules[] = {
    {"full-vocab-logits", "log-softmax-then-gather",
     "log_softmax over all positions, then a few positions gathered", kLogitsExplain, CheckLogits},
};

}  // namespace

std::span<const Rule> LogitsRules() { return kLogitsRules; }

}  // namespace fastenough::lint::rules
