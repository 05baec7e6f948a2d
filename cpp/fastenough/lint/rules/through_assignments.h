// Facts about an expression that hold directly or through the names it reads:
// `scores = q @ k.transpose(-2, -1); scores = scores / scale; scores.softmax(-1)`
// is attention written by hand although the softmax's receiver is only a name.
// Shared by attention.cc and logits.cc.
#pragma once

#include "fastenough/lint/module_scope.h"
#include "fastenough/pysrc/syntax_tree_children.h"

namespace fastenough::lint::rules {

// Some node under `expr` satisfies `pred`, or under a value assigned (in the
// same function) to a name `expr` reads, following up to `depth` assignments.
template <typename Pred>
bool HoldsThroughAssignments(const Node* expr, const AssignmentMap& assigns, int depth,
                             const Pred& pred) {
  if (pysrc::AnyInTree(expr, pred)) return true;
  if (depth == 0) return false;
  for (std::string_view name : NamesIn(expr)) {
    auto it = assigns.find(name);
    if (it == assigns.end()) continue;
    for (const Node* v : it->second) {
      if (v != expr && HoldsThroughAssignments(v, assigns, depth - 1, pred)) return true;
    }
  }
  return false;
}

}  // namespace fastenough::lint::rules
