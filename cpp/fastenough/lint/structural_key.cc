#include "fastenough/lint/structural_key.h"

#include <string_view>

namespace fastenough::lint {

namespace {

using pysrc::Kind;
using pysrc::Node;

void Append(const Node* n, std::string& out) {
  if (n == nullptr) {
    out += "~";  // an absent optional child (ast.dump: None)
    return;
  }
  out += '(';
  out += pysrc::KindName(n->kind);
  out += ' ';
  // Every scalar that ast.dump shows: identifiers, the operator byte, and for a
  // constant its kind and text (decoded for str/bytes, the literal otherwise:
  // `0x10` and `16` differ here though ast.dump shows both as 16).
  out += std::to_string(n->op);
  out += ' ';
  out += std::to_string(n->name.size());
  out += ':';
  out += n->name;
  out += std::to_string(n->asname.size());
  out += ':';
  out += n->asname;
  if (n->is(Kind::kConstant) || n->is(Kind::kJoinedStr)) {
    out += std::to_string(n->text.size());
    out += ':';
    out += n->text;
  }
  // Every field, list or single, present or not, so that shapes cannot alias.
  const pysrc::KindFields kf = pysrc::FieldsOf(n->kind);
  for (uint8_t i = 0; i < kf.count; ++i) {
    const pysrc::FieldRef& f = kf.fields[i];
    out += ' ';
    if (f.list) {
      out += '[';
      for (const Node* child : n->many[f.slot]) Append(child, out);
      out += ']';
    } else {
      Append(n->one[f.slot], out);
    }
  }
  out += ')';
}

}  // namespace

std::string StructuralKey(const pysrc::Node* n) {
  std::string out;
  Append(n, out);
  return out;
}

}  // namespace fastenough::lint
