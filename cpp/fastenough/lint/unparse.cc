// A port of the expression part of CPython 3.11's ast.unparse (Lib/ast.py,
// _Unparser): the same precedence table and parentheses, constants written as
// repr() of their value (0x10 -> 16, 1e3 -> 1000.0, 'a' quoted as repr quotes
// it), f-strings quoted the way _Unparser picks quotes. Messages quote code with
// it, and they must equal the Python lint's byte for byte.
//
// Known gaps (none reachable from ordinary code): the `u` prefix of u'...'
// strings is not written (the tree does not keep it), strings with an
// unresolved \N{...} escape are written as decoded, and unassigned code points
// count as printable (repr() escapes them).
#include "fastenough/lint/unparse.h"

#include "fastenough/lint/unparse_literals.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastenough::lint {

namespace {

using pysrc::BinOperator;
using pysrc::BoolOperator;
using pysrc::CmpOperator;
using pysrc::ConstantKind;
using pysrc::Kind;
using pysrc::Node;
using pysrc::UnaryOperator;
using namespace unparse_literals;  // NOLINT(google-build-using-namespace): one helper file

// _Precedence: a higher value binds tighter. BOR is EXPR.
enum Prec : int {
  kNamedExpr = 1, kTuple, kYield, kTest, kOr, kAnd, kNot, kCmp, kExpr, kBxor, kBand, kShift,
  kArith, kTerm, kFactor, kPower, kAwait, kAtom,
};
constexpr int kBor = kExpr;
int Next(int p) { return p < kAtom ? p + 1 : kAtom; }

// ---- the unparser ----------------------------------------------------------------

std::string_view BinOpText(BinOperator op) {
  static constexpr std::string_view kText[] = {"+", "-", "*", "@", "/", "%", "**",
                                               "<<", ">>", "|", "^", "&", "//"};
  return kText[static_cast<int>(op)];
}

int BinOpPrec(BinOperator op) {
  switch (op) {
    case BinOperator::kAdd: case BinOperator::kSub: return kArith;
    case BinOperator::kMult: case BinOperator::kMatMult: case BinOperator::kDiv:
    case BinOperator::kMod: case BinOperator::kFloorDiv: return kTerm;
    case BinOperator::kPow: return kPower;
    case BinOperator::kLShift: case BinOperator::kRShift: return kShift;
    case BinOperator::kBitOr: return kBor;
    case BinOperator::kBitXor: return kBxor;
    case BinOperator::kBitAnd: return kBand;
  }
  return kTest;
}

std::string_view CmpOpText(CmpOperator op) {
  static constexpr std::string_view kText[] = {"==", "!=", "<", "<=", ">", ">=",
                                               "is", "is not", "in", "not in"};
  return kText[static_cast<int>(op)];
}

class Unparser {
 public:
  explicit Unparser(bool avoid_backslashes) : avoid_backslashes_(avoid_backslashes) {}

  std::string Run(const Node* n, int prec) {
    Visit(n, prec);
    return std::move(out_);
  }

 private:
  // `prec` is the precedence the parent set for this node (_Unparser's
  // set_precedence; TEST when it set none).
  void Visit(const Node* n, int prec);
  void WriteIf(bool cond, char c) { if (cond) out_ += c; }

  void Constant(const Node& n);
  void JoinedStr(const Node& n);
  void FstringInner(const Node& n);
  void FormattedValue(const Node& n);
  void Comprehensions(const Node& n);
  void Arguments(const Node& n);
  void Items(pysrc::NodeList elts);  // items_view

  template <typename F>
  void Interleave(pysrc::NodeList list, std::string_view sep, F&& f) {
    bool first = true;
    for (const Node* x : list) {
      if (!first) out_ += sep;
      first = false;
      f(x);
    }
  }

  bool avoid_backslashes_;
  std::string out_;
};

void Unparser::Items(pysrc::NodeList elts) {
  if (elts.size() == 1) {
    Visit(elts[0], kTest);
    out_ += ',';
  } else {
    Interleave(elts, ", ", [&](const Node* x) { Visit(x, kTest); });
  }
}

void Unparser::Constant(const Node& n) {
  switch (n.constant_kind()) {
    case ConstantKind::kNone: out_ += "None"; break;
    case ConstantKind::kTrue: out_ += "True"; break;
    case ConstantKind::kFalse: out_ += "False"; break;
    case ConstantKind::kEllipsis: out_ += "..."; break;
    case ConstantKind::kInt: out_ += IntRepr(n); break;
    case ConstantKind::kFloat: out_ += FloatRepr(ParseFloatText(n.text), true); break;
    case ConstantKind::kComplex: out_ += FloatRepr(ParseFloatText(n.text), false) + "j"; break;
    case ConstantKind::kStr:
      out_ += avoid_backslashes_ ? StrAvoidingBackslashes(n.text) : ReprStr(n.text);
      break;
    case ConstantKind::kBytes: out_ += ReprBytes(n.text); break;
  }
}

void Unparser::FstringInner(const Node& n) {
  if (n.is(Kind::kJoinedStr)) {
    for (const Node* v : n.values()) FstringInner(*v);
  } else if (n.is(Kind::kConstant)) {
    for (char c : n.text) {
      out_ += c;
      if (c == '{' || c == '}') out_ += c;
    }
  } else if (n.is(Kind::kFormattedValue)) {
    FormattedValue(n);
  }
}

void Unparser::FormattedValue(const Node& n) {
  out_ += '{';
  const std::string expr = Unparser(true).Run(n.value(), Next(kTest));
  if (!expr.empty() && expr[0] == '{') out_ += ' ';  // "{ {" not "{{"
  out_ += expr;
  if (n.op != 0) {
    out_ += '!';
    out_ += static_cast<char>(n.op);
  }
  if (n.format_spec() != nullptr) {
    out_ += ':';
    FstringInner(*n.format_spec());
  }
  out_ += '}';
}

void Unparser::JoinedStr(const Node& n) {
  out_ += 'f';
  if (avoid_backslashes_) {
    Unparser inner(true);
    inner.FstringInner(n);
    out_ += StrAvoidingBackslashes(inner.out_);
    return;
  }
  // Each part escaped on its own (escaped whitespace in the constant parts), with
  // a quote that suits every part; else repr and '''.
  std::vector<std::pair<std::string, bool>> parts;
  for (const Node* v : n.values()) {
    Unparser part(false);
    part.FstringInner(*v);
    parts.emplace_back(std::move(part.out_), v->is(Kind::kConstant));
  }
  std::vector<std::string_view> quotes(std::begin(kAllQuotes), std::end(kAllQuotes));
  std::string body;
  bool fallback = false;
  for (const auto& [text, is_constant] : parts) {
    std::vector<std::string_view> next = quotes;
    body += StrLiteralHelper(text, &next, is_constant);
    bool shared = false;
    for (std::string_view a : next) {
      for (std::string_view b : quotes) shared = shared || a == b;
    }
    if (!shared) {
      fallback = true;
      break;
    }
    quotes = std::move(next);
  }
  if (fallback) {
    quotes = {"'''"};
    body.clear();
    for (const auto& [text, is_constant] : parts) {
      const std::string r = ReprStr("\"" + text);  // repr picks ' when " is present
      body += r.substr(2, r.size() - 3);
    }
  }
  out_ += quotes[0];
  out_ += body;
  out_ += quotes[0];
}

void Unparser::Comprehensions(const Node& n) {
  for (const Node* g : n.generators()) {
    out_ += g->op != 0 ? " async for " : " for ";
    Visit(g->target(), kTuple);
    out_ += " in ";
    Visit(g->iter(), Next(kTest));
    for (const Node* cond : g->ifs()) {
      out_ += " if ";
      Visit(cond, Next(kTest));
    }
  }
}

void Unparser::Arguments(const Node& a) {
  bool first = true;
  auto comma = [&] {
    if (!first) out_ += ", ";
    first = false;
  };
  auto arg = [&](const Node* x) {
    out_ += x->name;
    if (x->annotation() != nullptr) {
      out_ += ": ";
      Visit(x->annotation(), kTest);
    }
  };
  const size_t npos = a.posonlyargs().size();
  const size_t nall = npos + a.args().size();
  const size_t ndef = a.defaults().size();
  for (size_t i = 0; i < nall; ++i) {
    comma();
    arg(i < npos ? a.posonlyargs()[i] : a.args()[i - npos]);
    if (i + ndef >= nall) {
      out_ += '=';
      Visit(a.defaults()[i + ndef - nall], kTest);
    }
    if (i + 1 == npos) out_ += ", /";
  }
  if (a.vararg() != nullptr || !a.kwonlyargs().empty()) {
    comma();
    out_ += '*';
    if (a.vararg() != nullptr) arg(a.vararg());
  }
  for (uint32_t i = 0; i < a.kwonlyargs().size(); ++i) {
    out_ += ", ";
    arg(a.kwonlyargs()[i]);
    const Node* d = i < a.kw_defaults().size() ? a.kw_defaults()[i] : nullptr;
    if (d != nullptr) {
      out_ += '=';
      Visit(d, kTest);
    }
  }
  if (a.kwarg() != nullptr) {
    comma();
    out_ += "**";
    arg(a.kwarg());
  }
}

void Unparser::Visit(const Node* n, int prec) {
  if (n == nullptr) return;
  switch (n->kind) {
    case Kind::kName:
      out_ += n->name;
      break;
    case Kind::kConstant:
      Constant(*n);
      break;
    case Kind::kJoinedStr:
      JoinedStr(*n);
      break;
    case Kind::kFormattedValue:
      FormattedValue(*n);
      break;
    case Kind::kAttribute: {
      const Node* v = n->value();
      Visit(v, kAtom);
      // 3.__abs__() is a syntax error: 3 .__abs__() (True and False are ints too).
      if (v->is(Kind::kConstant) && (v->constant_kind() == ConstantKind::kInt ||
                                     v->constant_kind() == ConstantKind::kTrue ||
                                     v->constant_kind() == ConstantKind::kFalse)) {
        out_ += ' ';
      }
      out_ += '.';
      out_ += n->name;
      break;
    }
    case Kind::kCall: {
      Visit(n->func(), kAtom);
      out_ += '(';
      bool comma = false;
      for (const Node* a : n->args()) {
        if (comma) out_ += ", ";
        comma = true;
        Visit(a, kTest);
      }
      for (const Node* k : n->keywords()) {
        if (comma) out_ += ", ";
        comma = true;
        Visit(k, kTest);
      }
      out_ += ')';
      break;
    }
    case Kind::kKeyword:
      if (n->name.empty()) {
        out_ += "**";
      } else {
        out_ += n->name;
        out_ += '=';
      }
      Visit(n->value(), kTest);
      break;
    case Kind::kSubscript: {
      Visit(n->value(), kAtom);
      out_ += '[';
      const Node* s = n->slice();
      if (s->is(Kind::kTuple) && !s->elts().empty()) {
        Items(s->elts());  // parentheses can be omitted
      } else {
        Visit(s, kTest);
      }
      out_ += ']';
      break;
    }
    case Kind::kSlice:
      Visit(n->lower(), kTest);
      out_ += ':';
      Visit(n->upper(), kTest);
      if (n->step() != nullptr) {
        out_ += ':';
        Visit(n->step(), kTest);
      }
      break;
    case Kind::kStarred:
      out_ += '*';
      Visit(n->value(), kExpr);
      break;
    case Kind::kTuple: {
      const bool parens = n->elts().empty() || prec > kTuple;
      WriteIf(parens, '(');
      Items(n->elts());
      WriteIf(parens, ')');
      break;
    }
    case Kind::kList:
      out_ += '[';
      Interleave(n->elts(), ", ", [&](const Node* x) { Visit(x, kTest); });
      out_ += ']';
      break;
    case Kind::kSet:
      if (n->elts().empty()) {
        out_ += "{*()}";  // `{}` is a dict, and `set` may be shadowed
      } else {
        out_ += '{';
        Interleave(n->elts(), ", ", [&](const Node* x) { Visit(x, kTest); });
        out_ += '}';
      }
      break;
    case Kind::kDict: {
      out_ += '{';
      const pysrc::NodeList keys = n->keys(), values = n->values();
      for (uint32_t i = 0; i < values.size(); ++i) {
        if (i) out_ += ", ";
        const Node* k = i < keys.size() ? keys[i] : nullptr;
        if (k == nullptr) {
          out_ += "**";  // {**d}
          Visit(values[i], kExpr);
        } else {
          Visit(k, kTest);
          out_ += ": ";
          Visit(values[i], kTest);
        }
      }
      out_ += '}';
      break;
    }
    case Kind::kListComp:
    case Kind::kGeneratorExp:
    case Kind::kSetComp: {
      const bool list = n->is(Kind::kListComp), gen = n->is(Kind::kGeneratorExp);
      out_ += list ? '[' : gen ? '(' : '{';
      Visit(n->elt(), kTest);
      Comprehensions(*n);
      out_ += list ? ']' : gen ? ')' : '}';
      break;
    }
    case Kind::kDictComp:
      out_ += '{';
      Visit(n->key(), kTest);
      out_ += ": ";
      Visit(n->value(), kTest);
      Comprehensions(*n);
      out_ += '}';
      break;
    case Kind::kIfExp:
      WriteIf(prec > kTest, '(');
      Visit(n->body_expr(), Next(kTest));
      out_ += " if ";
      Visit(n->test(), Next(kTest));
      out_ += " else ";
      Visit(n->orelse_expr(), kTest);
      WriteIf(prec > kTest, ')');
      break;
    case Kind::kUnaryOp: {
      const UnaryOperator op = n->unary_op();
      const int p = op == UnaryOperator::kNot ? kNot : kFactor;
      WriteIf(prec > p, '(');
      out_ += op == UnaryOperator::kNot ? "not " : op == UnaryOperator::kInvert ? "~"
              : op == UnaryOperator::kUAdd ? "+" : "-";
      Visit(n->operand(), p);
      WriteIf(prec > p, ')');
      break;
    }
    case Kind::kBinOp: {
      const int p = BinOpPrec(n->bin_op());
      const bool right_assoc = n->bin_op() == BinOperator::kPow;
      WriteIf(prec > p, '(');
      Visit(n->left(), right_assoc ? Next(p) : p);
      out_ += ' ';
      out_ += BinOpText(n->bin_op());
      out_ += ' ';
      Visit(n->right(), right_assoc ? p : Next(p));
      WriteIf(prec > p, ')');
      break;
    }
    case Kind::kCompare: {
      WriteIf(prec > kCmp, '(');
      Visit(n->left(), Next(kCmp));
      for (uint32_t i = 0; i < n->ops().size() && i < n->comparators().size(); ++i) {
        out_ += ' ';
        out_ += CmpOpText(n->ops()[i]->cmp_op());
        out_ += ' ';
        Visit(n->comparators()[i], Next(kCmp));
      }
      WriteIf(prec > kCmp, ')');
      break;
    }
    case Kind::kBoolOp: {
      // Each operand binds one level tighter than the one before (as _Unparser does).
      int p = n->bool_op() == BoolOperator::kAnd ? kAnd : kOr;
      WriteIf(prec > p, '(');
      const bool parens = prec > p;
      Interleave(n->values(), n->bool_op() == BoolOperator::kAnd ? " and " : " or ",
                 [&](const Node* x) {
                   p = Next(p);
                   Visit(x, p);
                 });
      WriteIf(parens, ')');
      break;
    }
    case Kind::kNamedExpr:
      WriteIf(prec > kNamedExpr, '(');
      Visit(n->target(), kAtom);
      out_ += " := ";
      Visit(n->value(), kAtom);
      WriteIf(prec > kNamedExpr, ')');
      break;
    case Kind::kLambda: {
      WriteIf(prec > kTest, '(');
      out_ += "lambda";
      Unparser args(avoid_backslashes_);
      if (n->arguments() != nullptr) args.Arguments(*n->arguments());
      if (!args.out_.empty()) out_ += " " + args.out_;
      out_ += ": ";
      Visit(n->body_expr(), kTest);
      WriteIf(prec > kTest, ')');
      break;
    }
    case Kind::kAwait:
    case Kind::kYield:
    case Kind::kYieldFrom: {
      const int p = n->is(Kind::kAwait) ? kAwait : kYield;
      WriteIf(prec > p, '(');
      out_ += n->is(Kind::kAwait) ? "await" : n->is(Kind::kYield) ? "yield" : "yield from";
      if (n->value() != nullptr) {
        out_ += ' ';
        Visit(n->value(), kAtom);
      }
      WriteIf(prec > p, ')');
      break;
    }
    default:
      out_ += "...";  // not an expression: never quoted by a rule
      break;
  }
}

}  // namespace

std::string Unparse(const pysrc::Node* expr) { return Unparser(false).Run(expr, kTest); }

}  // namespace fastenough::lint
