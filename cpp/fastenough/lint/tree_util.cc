#include "fastenough/lint/tree_util.h"

#include <algorithm>

namespace fastenough::lint {

using pysrc::ConstantKind;

std::string Dotted(const Node* n) {
  if (n == nullptr) return "";
  std::vector<std::string_view> parts;
  while (true) {
    if (n->is(Kind::kAttribute)) {
      parts.push_back(n->name);
      n = n->value();
    } else if (n->is(Kind::kName)) {
      parts.push_back(n->name);
      break;
    } else if (n->is(Kind::kCall)) {
      std::string inner = Dotted(n->func());
      if (inner.empty()) return "";
      std::string out = inner + "()";
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        out += '.';
        out += *it;
      }
      return out;
    } else {
      return "";
    }
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!out.empty()) out += '.';
    out += *it;
  }
  return out;
}

std::string_view LeafOf(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

std::string_view RootOf(std::string_view dotted) {
  return dotted.substr(0, dotted.find('.'));
}

std::string_view LastName(const Node* n) {
  while (n != nullptr) {
    if (n->is(Kind::kAttribute) || n->is(Kind::kName)) return n->name;
    if (!n->is(Kind::kCall)) return "";
    n = n->func();
  }
  return "";
}

std::string_view MethodName(const Node* call) {
  if (call == nullptr || !call->is(Kind::kCall) || !call->func()->is(Kind::kAttribute)) return "";
  return call->func()->name;
}

const Node* Kwarg(const Node& call, std::string_view name) {
  for (const Node* k : call.keywords()) {
    if (!k->name.empty() && k->name == name) return k->value();
  }
  return nullptr;
}

bool HasStarKwargs(const Node& call) {
  for (const Node* k : call.keywords()) {
    if (k->name.empty()) return true;
  }
  return false;
}

static bool IsConstantOf(const Node* n, ConstantKind kind) {
  return n != nullptr && n->is(Kind::kConstant) && n->constant_kind() == kind;
}

bool IsTrue(const Node* n) { return IsConstantOf(n, ConstantKind::kTrue); }
bool IsFalse(const Node* n) { return IsConstantOf(n, ConstantKind::kFalse); }
bool IsNone(const Node* n) { return IsConstantOf(n, ConstantKind::kNone); }

bool IsIntConst(const Node* n, int64_t value) {
  if (n == nullptr) return false;
  if (n->is(Kind::kUnaryOp) && n->unary_op() == pysrc::UnaryOperator::kUSub) {
    // Python: `isinstance(operand, Constant) and operand.value == -value`: any
    // numeric constant (True too) equal to -value.
    const Node* o = n->operand();
    if (!o->is(Kind::kConstant)) return false;
    if (o->constant_kind() == ConstantKind::kInt) return o->int_fits && o->int_value == -value;
    if (o->constant_kind() == ConstantKind::kTrue) return -value == 1;
    if (o->constant_kind() == ConstantKind::kFalse) return value == 0;
    return false;  // floats equal to an int: not worth the parsing
  }
  return IsConstantOf(n, ConstantKind::kInt) && n->int_fits && n->int_value == value;
}

bool IsStrConst(const Node* n) { return IsConstantOf(n, ConstantKind::kStr); }

bool IsStrConst(const Node* n, std::string_view value) {
  return IsStrConst(n) && n->text == value;
}

bool IsZeroConst(const Node* n) {
  if (n == nullptr || !n->is(Kind::kConstant)) return false;
  switch (n->constant_kind()) {
    case ConstantKind::kFalse:
      return true;
    case ConstantKind::kInt:
      return n->int_fits && n->int_value == 0;
    case ConstantKind::kFloat:
    case ConstantKind::kComplex: {
      // A literal is zero when every digit of its mantissa is 0 ("0.0", "0e5", "0j").
      for (char c : n->text) {
        if (c == 'e' || c == 'E' || c == 'j' || c == 'J') break;
        if (c >= '1' && c <= '9') return false;
      }
      return true;
    }
    default:
      return false;
  }
}

std::vector<std::string_view> NamesIn(const Node* n) {
  std::vector<std::string_view> out;
  pysrc::WalkTree(n, [&](const Node* x) {
    if (x->is(Kind::kName)) out.push_back(x->name);
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace fastenough::lint
