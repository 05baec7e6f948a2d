// ForEachChild: the children of a node in the order of its `ast` fields.
// Included by syntax_tree.h; the table below is the one place that knows which
// slot holds which field of which kind, in order (dump.cc prints from it).
#pragma once

#include <cstdint>

namespace fastenough::pysrc {

// One field of a kind: a single slot (index 0..2) or a list slot (0..4).
struct FieldRef {
  const char* name;  // the `ast` field name
  bool list;
  uint8_t slot;
};

// The node-valued fields of a kind, in `ast` order. Identifier lists
// (Global/Nonlocal.names, MatchClass.kwd_attrs) are fields too, marked with
// identifiers=true by IdentifierField(); ForEachChild skips them as
// ast.iter_child_nodes does (they are plain strings in `ast`).
struct KindFields {
  const FieldRef* fields;
  uint8_t count;
};
KindFields FieldsOf(Kind kind);
bool IsIdentifierField(Kind kind, const FieldRef& f);

template <typename Visit>
void ForEachChild(const Node& n, Visit&& visit) {
  const KindFields kf = FieldsOf(n.kind);
  for (uint8_t i = 0; i < kf.count; ++i) {
    const FieldRef& f = kf.fields[i];
    if (f.list) {
      if (IsIdentifierField(n.kind, f)) continue;
      for (Node* child : n.many[f.slot]) {
        if (child != nullptr) visit(child);
      }
    } else if (n.one[f.slot] != nullptr) {
      visit(n.one[f.slot]);
    }
  }
}

// Every node under `root` (root included), depth first in field order. Unlike
// ast.walk (breadth first) the order is source order, which the rules rely on
// only where they say so. `visit` returns nothing; `root` may be nullptr.
template <typename Visit>
void WalkTree(const Node* root, Visit&& visit) {
  if (root == nullptr) return;
  visit(root);
  ForEachChild(*root, [&](const Node* child) { WalkTree(child, visit); });
}

// True when some node under `root` (root included) satisfies `pred`; stops at
// the first.
template <typename Pred>
bool AnyInTree(const Node* root, Pred&& pred) {
  if (root == nullptr) return false;
  if (pred(root)) return true;
  bool found = false;
  ForEachChild(*root, [&](const Node* child) {
    if (!found && AnyInTree(child, pred)) found = true;
  });
  return found;
}

}  // namespace fastenough::pysrc
