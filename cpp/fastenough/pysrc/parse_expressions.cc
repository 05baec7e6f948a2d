// Expressions, from star_expressions down to atoms, and assignment targets.
#include <cstdlib>
#include <string>

#include "fastenough/pysrc/parser_impl.h"

namespace fastenough::pysrc {
namespace {

// Binary operators by precedence level (higher binds tighter), in the order
// of bitwise_or ... term in the grammar.
int BinaryPrecedence(Op op, BinOperator* out) {
  switch (op) {
    case Op::kVBar: *out = BinOperator::kBitOr; return 1;
    case Op::kCircumflex: *out = BinOperator::kBitXor; return 2;
    case Op::kAmper: *out = BinOperator::kBitAnd; return 3;
    case Op::kLeftShift: *out = BinOperator::kLShift; return 4;
    case Op::kRightShift: *out = BinOperator::kRShift; return 4;
    case Op::kPlus: *out = BinOperator::kAdd; return 5;
    case Op::kMinus: *out = BinOperator::kSub; return 5;
    case Op::kStar: *out = BinOperator::kMult; return 6;
    case Op::kSlash: *out = BinOperator::kDiv; return 6;
    case Op::kDoubleSlash: *out = BinOperator::kFloorDiv; return 6;
    case Op::kPercent: *out = BinOperator::kMod; return 6;
    case Op::kAt: *out = BinOperator::kMatMult; return 6;
    default: return 0;
  }
}

}  // namespace

Node* ParserImpl::StarExpressions() {
  const Token& first = Cur();
  Node* e = StarExpression();
  if (e == nullptr || !AtOp(Op::kComma)) return e;
  Node* tuple = New(Kind::kTuple, first);
  size_t mark = Mark();
  Push(e);
  while (EatOp(Op::kComma)) {
    // A trailing comma ends the tuple: `x = 1, 2,`.
    const Token& t = Cur();
    if (t.kind == TokenKind::kNewline || t.kind == TokenKind::kEnd ||
        t.op() == Op::kSemi || t.op() == Op::kEqual || t.op() == Op::kColon ||
        t.op() == Op::kRPar || t.op() == Op::kRSqb || t.op() == Op::kRBrace ||
        (t.op() >= Op::kPlusEqual && t.op() <= Op::kDoubleSlashEqual)) {
      break;
    }
    Node* next = StarExpression();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  tuple->many[2] = Collect(mark);
  return Finish(tuple);
}

Node* ParserImpl::StarExpression() {
  if (AtOp(Op::kStar)) {
    Node* n = New(Kind::kStarred, Cur());
    Advance();
    if ((n->one[0] = Binary(1)) == nullptr) return nullptr;
    return Finish(n);
  }
  return Expression();
}

Node* ParserImpl::StarNamedExpression() {
  if (AtOp(Op::kStar)) {
    Node* n = New(Kind::kStarred, Cur());
    Advance();
    if ((n->one[0] = Binary(1)) == nullptr) return nullptr;
    return Finish(n);
  }
  return NamedExpression();
}

Node* ParserImpl::NamedExpression() {
  if (AtPlainName() && Peek().op() == Op::kColonEqual) {
    Node* n = New(Kind::kNamedExpr, Cur());
    n->one[1] = Name(Cur());
    Advance();
    Advance();
    if ((n->one[0] = Expression()) == nullptr) return nullptr;
    return Finish(n);
  }
  return Expression();
}

Node* ParserImpl::Expression() {
  RecursionGuard guard(*this);
  if (!guard.ok()) return FailTooDeep(Cur());
  if (AtKw(Keyword::kLambda)) return Lambda();
  const Token& start = Cur();
  Node* body = Disjunction();
  if (body == nullptr || !AtKw(Keyword::kIf)) return body;
  Advance();
  Node* n = New(Kind::kIfExp, start);
  n->one[1] = body;
  if ((n->one[0] = Disjunction()) == nullptr) return nullptr;
  if (!ExpectKw(Keyword::kElse, "else")) return nullptr;
  if ((n->one[2] = Expression()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::Disjunction() {
  const Token& start = Cur();
  Node* first = Conjunction();
  if (first == nullptr || !AtKw(Keyword::kOr)) return first;
  Node* n = New(Kind::kBoolOp, start);
  n->op = static_cast<uint8_t>(BoolOperator::kOr);
  size_t mark = Mark();
  Push(first);
  while (EatKw(Keyword::kOr)) {
    Node* next = Conjunction();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  n->many[2] = Collect(mark);
  return Finish(n);
}

Node* ParserImpl::Conjunction() {
  const Token& start = Cur();
  Node* first = Inversion();
  if (first == nullptr || !AtKw(Keyword::kAnd)) return first;
  Node* n = New(Kind::kBoolOp, start);
  n->op = static_cast<uint8_t>(BoolOperator::kAnd);
  size_t mark = Mark();
  Push(first);
  while (EatKw(Keyword::kAnd)) {
    Node* next = Inversion();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  n->many[2] = Collect(mark);
  return Finish(n);
}

Node* ParserImpl::Inversion() {
  if (!AtKw(Keyword::kNot)) return Comparison();
  RecursionGuard guard(*this);
  if (!guard.ok()) return FailTooDeep(Cur());
  Node* n = New(Kind::kUnaryOp, Cur());
  n->op = static_cast<uint8_t>(UnaryOperator::kNot);
  Advance();
  if ((n->one[0] = Inversion()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::Comparison() {
  const Token& start = Cur();
  Node* left = Binary(1);
  if (left == nullptr) return nullptr;
  Node* n = nullptr;
  size_t ops_mark = 0, cmp_mark = 0;
  while (true) {
    const Token& t = Cur();
    CmpOperator op;
    int len = 1;
    switch (t.op()) {
      case Op::kEqEqual: op = CmpOperator::kEq; break;
      case Op::kNotEqual: op = CmpOperator::kNotEq; break;
      case Op::kLess: op = CmpOperator::kLt; break;
      case Op::kLessEqual: op = CmpOperator::kLtE; break;
      case Op::kGreater: op = CmpOperator::kGt; break;
      case Op::kGreaterEqual: op = CmpOperator::kGtE; break;
      default:
        if (t.kind != TokenKind::kName) goto done;
        if (t.keyword() == Keyword::kIn) {
          op = CmpOperator::kIn;
        } else if (t.keyword() == Keyword::kIs) {
          op = CmpOperator::kIs;
          if (Peek().keyword() == Keyword::kNot && Peek().kind == TokenKind::kName) {
            op = CmpOperator::kIsNot;
            len = 2;
          }
        } else if (t.keyword() == Keyword::kNot && Peek().keyword() == Keyword::kIn &&
                   Peek().kind == TokenKind::kName) {
          op = CmpOperator::kNotIn;
          len = 2;
        } else {
          goto done;
        }
    }
    if (n == nullptr) {
      n = New(Kind::kCompare, start);
      n->one[0] = left;
      ops_mark = Mark(1);
      cmp_mark = Mark();
    }
    {
      Node* o = New(Kind::kCmpOp, t);
      o->op = static_cast<uint8_t>(op);
      for (int i = 0; i < len; ++i) Advance();
      Push(o, 1);
      Node* right = Binary(1);
      if (right == nullptr) return nullptr;
      Push(right);
    }
  }
done:
  if (n == nullptr) return left;
  n->many[2] = Collect(cmp_mark);
  n->many[1] = Collect(ops_mark, 1);
  return Finish(n);
}

Node* ParserImpl::Binary(int min_prec) {
  const Token& start = Cur();
  Node* left = Factor();
  while (left != nullptr) {
    BinOperator op;
    int prec = BinaryPrecedence(Cur().op(), &op);
    if (prec == 0 || prec < min_prec) break;
    Advance();
    Node* right = Binary(prec + 1);
    if (right == nullptr) return nullptr;
    Node* n = New(Kind::kBinOp, start);
    n->op = static_cast<uint8_t>(op);
    n->one[0] = left;
    n->one[1] = right;
    left = Finish(n);
  }
  return left;
}

Node* ParserImpl::Factor() {
  UnaryOperator op;
  switch (Cur().op()) {
    case Op::kPlus: op = UnaryOperator::kUAdd; break;
    case Op::kMinus: op = UnaryOperator::kUSub; break;
    case Op::kTilde: op = UnaryOperator::kInvert; break;
    default: return Power();
  }
  RecursionGuard guard(*this);
  if (!guard.ok()) return FailTooDeep(Cur());
  Node* n = New(Kind::kUnaryOp, Cur());
  n->op = static_cast<uint8_t>(op);
  Advance();
  if ((n->one[0] = Factor()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::Power() {
  const Token& start = Cur();
  Node* base;
  if (AtKw(Keyword::kAwait)) {
    Node* n = New(Kind::kAwait, Cur());
    Advance();
    if ((n->one[0] = Primary()) == nullptr) return nullptr;
    base = Finish(n);
  } else {
    base = Primary();
  }
  if (base == nullptr || !AtOp(Op::kDoubleStar)) return base;
  Advance();
  Node* n = New(Kind::kBinOp, start);
  n->op = static_cast<uint8_t>(BinOperator::kPow);
  n->one[0] = base;
  if ((n->one[1] = Factor()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::Primary() {
  // Every node of a trailer chain starts at the chain's first token, the
  // '(' of a parenthesized atom included: `(a.b)(c)` is a Call from col 0.
  const Token& start = Cur();
  Node* e = Atom();
  while (e != nullptr) {
    if (AtOp(Op::kDot)) {
      Advance();
      if (!AtKind(TokenKind::kName)) return FailInvalid();
      Node* n = New(Kind::kAttribute, start);
      n->one[0] = e;
      n->name = Text(Cur());
      Advance();
      e = Finish(n);
    } else if (AtOp(Op::kLPar)) {
      e = Call(e, start);
    } else if (AtOp(Op::kLSqb)) {
      Advance();
      Node* n = New(Kind::kSubscript, start);
      n->one[0] = e;
      if ((n->one[1] = Slices()) == nullptr) return nullptr;
      if (!ExpectOp(Op::kRSqb, "]")) return nullptr;
      e = Finish(n);
    } else {
      break;
    }
  }
  return e;
}

// After '(': positional, starred, keyword and **-arguments up to and with ')'.
bool ParserImpl::CallArguments(NodeList* args, NodeList* keywords, Node* first) {
  size_t mark = Mark();
  size_t kw_mark = Mark(1);
  bool more = true;
  if (first != nullptr) {
    Push(first);
    more = EatOp(Op::kComma);
  }
  while (more && !AtOp(Op::kRPar)) {
    const Token& t = Cur();
    if (t.op() == Op::kStar) {
      Node* n = New(Kind::kStarred, t);
      Advance();
      if ((n->one[0] = Expression()) == nullptr) return false;
      Push(Finish(n));
    } else if (t.op() == Op::kDoubleStar) {
      Node* n = New(Kind::kKeyword, t);
      Advance();
      if ((n->one[0] = Expression()) == nullptr) return false;
      Push(Finish(n), 1);
    } else if (t.kind == TokenKind::kName && Peek().op() == Op::kEqual) {
      Node* n = New(Kind::kKeyword, t);
      n->name = Text(t);
      Advance();
      Advance();
      if ((n->one[0] = Expression()) == nullptr) return false;
      Push(Finish(n), 1);
    } else {
      Node* e = NamedExpression();
      if (e == nullptr) return false;
      if (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
        return Fail(Cur(), "Generator expression must be parenthesized"), false;
      }
      Push(e);
    }
    more = EatOp(Op::kComma);
  }
  if (!ExpectOp(Op::kRPar, ")")) return false;
  *keywords = Collect(kw_mark, 1);
  *args = Collect(mark);
  return true;
}

Node* ParserImpl::Call(Node* func, const Token& start) {
  const Token& open = Cur();
  Advance();
  Node* n = New(Kind::kCall, start);
  n->one[0] = func;
  // f(x for x in xs): the generator is the only argument and spans the parentheses.
  Node* first = nullptr;
  if (!AtOp(Op::kRPar) && !AtOp(Op::kStar) && !AtOp(Op::kDoubleStar) &&
      !(AtKind(TokenKind::kName) && Peek().op() == Op::kEqual)) {
    first = NamedExpression();
    if (first == nullptr) return nullptr;
    if (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
      Node* gen = New(Kind::kGeneratorExp, open);
      gen->one[0] = first;
      size_t mark = Mark();
      if (!Generators(mark)) return nullptr;
      gen->many[2] = Collect(mark);
      if (AtOp(Op::kComma)) return Fail(Cur(), "Generator expression must be parenthesized");
      if (!ExpectOp(Op::kRPar, ")")) return nullptr;
      if (Finish(gen) == nullptr) return nullptr;
      n->many[2] = ListOf({gen});
      return Finish(n);
    }
  }
  if (!CallArguments(&n->many[2], &n->many[3], first)) return nullptr;
  return Finish(n);
}

Node* ParserImpl::Slices() {
  const Token& first = Cur();
  Node* s = Slice();
  if (s == nullptr) return nullptr;
  if (!AtOp(Op::kComma)) {
    if (s->kind != Kind::kStarred) return s;
    Node* tuple = New(Kind::kTuple, first);  // x[*a] indexes with the tuple (*a,)
    tuple->many[2] = ListOf({s});
    return Finish(tuple);
  }
  Node* tuple = New(Kind::kTuple, first);
  size_t mark = Mark();
  Push(s);
  while (EatOp(Op::kComma)) {
    if (AtOp(Op::kRSqb)) break;
    Node* next = Slice();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  tuple->many[2] = Collect(mark);
  return Finish(tuple);
}

Node* ParserImpl::Slice() {
  if (AtOp(Op::kStar)) return StarNamedExpression();
  const Token& first = Cur();
  Node* lower = nullptr;
  if (!AtOp(Op::kColon)) {
    lower = NamedExpression();
    if (lower == nullptr || !AtOp(Op::kColon)) return lower;
  }
  Node* n = New(Kind::kSlice, first);
  n->one[0] = lower;
  Advance();  // ':'
  auto ends = [&]() { return AtOp(Op::kColon) || AtOp(Op::kComma) || AtOp(Op::kRSqb); };
  if (!ends() && (n->one[1] = Expression()) == nullptr) return nullptr;
  if (EatOp(Op::kColon)) {
    if (!AtOp(Op::kComma) && !AtOp(Op::kRSqb) && (n->one[2] = Expression()) == nullptr) {
      return nullptr;
    }
  }
  return Finish(n);
}

bool ParserImpl::Generators(size_t mark) {
  while (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
    Node* c = New(Kind::kComprehension, Cur());
    if (AtKw(Keyword::kAsync)) {
      c->op = 1;
      Advance();
    }
    Advance();  // 'for'
    if ((c->one[1] = StarTargets()) == nullptr) return false;
    if (!ExpectKw(Keyword::kIn, "in")) return false;
    if ((c->one[2] = Disjunction()) == nullptr) return false;
    size_t ifs = Mark();
    while (EatKw(Keyword::kIf)) {
      Node* cond = Disjunction();
      if (cond == nullptr) return false;
      Push(cond);
    }
    c->many[2] = Collect(ifs);
    c->line = c->col = 0;  // comprehension has no position in ast
    if (SetDepth(c) == nullptr) return false;
    Push(c);
  }
  (void)mark;
  return true;
}

Node* ParserImpl::Atom() {
  const Token& t = Cur();
  switch (t.kind) {
    case TokenKind::kName: {
      ConstantKind ck;
      switch (t.keyword()) {
        case Keyword::kNone: {
          Advance();
          return Name(t);
        }
        case Keyword::kTrue: ck = ConstantKind::kTrue; break;
        case Keyword::kFalse: ck = ConstantKind::kFalse; break;
        case Keyword::kNoneKw: ck = ConstantKind::kNone; break;
        default: return FailInvalid();
      }
      Node* n = New(Kind::kConstant, t);
      n->op = static_cast<uint8_t>(ck);
      n->text = Text(t);
      Advance();
      return Finish(n);
    }
    case TokenKind::kNumber: {
      Advance();
      return Number(t);
    }
    case TokenKind::kString: return Strings();
    case TokenKind::kOp: break;
    case TokenKind::kIndent: return Fail(t, "unexpected indent");
    default: return FailInvalid();
  }
  switch (t.op()) {
    case Op::kLPar: return Paren();
    case Op::kLSqb: return ListDisplay();
    case Op::kLBrace: return BraceDisplay();
    case Op::kEllipsis: {
      Node* n = New(Kind::kConstant, t);
      n->op = static_cast<uint8_t>(ConstantKind::kEllipsis);
      n->text = Text(t);
      Advance();
      return Finish(n);
    }
    default: return FailInvalid();
  }
}

Node* ParserImpl::Number(const Token& t) {
  Node* n = New(Kind::kConstant, t);
  std::string_view s = Text(t);
  n->text = s;
  char last = s.back();
  bool prefixed = s.size() > 1 && s[0] == '0' && std::string_view("xXoObB").find(s[1]) !=
                                                     std::string_view::npos;
  if (last == 'j' || last == 'J') {
    n->op = static_cast<uint8_t>(ConstantKind::kComplex);
  } else if (!prefixed && s.find_first_of(".eE") != std::string_view::npos) {
    n->op = static_cast<uint8_t>(ConstantKind::kFloat);
  } else {
    n->op = static_cast<uint8_t>(ConstantKind::kInt);
    int base = 10;
    size_t i = 0;
    if (prefixed) {
      base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
      i = 2;
    }
    unsigned __int128 v = 0;
    bool fits = true;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (c == '_') continue;
      int d = (c >= '0' && c <= '9') ? c - '0' : (c | 0x20) - 'a' + 10;
      v = v * base + static_cast<unsigned>(d);
      if (v > static_cast<unsigned __int128>(INT64_MAX)) {
        fits = false;
        break;
      }
    }
    n->int_fits = fits;
    n->int_value = fits ? static_cast<int64_t>(v) : 0;
  }
  return Finish(n);
}

Node* ParserImpl::Paren() {
  const Token& open = Cur();
  Advance();
  if (AtOp(Op::kRPar)) {  // ()
    Node* n = New(Kind::kTuple, open);
    Advance();
    return Finish(n);
  }
  if (AtKw(Keyword::kYield)) {
    Node* y = YieldExpr();
    if (y == nullptr || !ExpectOp(Op::kRPar, ")")) return nullptr;
    return y;
  }
  Node* first = StarNamedExpression();
  if (first == nullptr) return nullptr;
  if (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
    Node* gen = New(Kind::kGeneratorExp, open);
    gen->one[0] = first;
    size_t mark = Mark();
    if (!Generators(mark)) return nullptr;
    gen->many[2] = Collect(mark);
    if (!ExpectOp(Op::kRPar, ")")) return nullptr;
    return Finish(gen);
  }
  if (!AtOp(Op::kComma)) {
    if (!ExpectOp(Op::kRPar, ")")) return nullptr;
    return first;  // a parenthesized expression keeps its own position
  }
  Node* tuple = New(Kind::kTuple, open);
  size_t mark = Mark();
  Push(first);
  while (EatOp(Op::kComma)) {
    if (AtOp(Op::kRPar)) break;
    Node* next = StarNamedExpression();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  if (!ExpectOp(Op::kRPar, ")")) return nullptr;
  tuple->many[2] = Collect(mark);
  return Finish(tuple);
}

Node* ParserImpl::ListDisplay() {
  const Token& open = Cur();
  Advance();
  Node* n = New(Kind::kList, open);
  if (EatOp(Op::kRSqb)) return Finish(n);
  Node* first = StarNamedExpression();
  if (first == nullptr) return nullptr;
  size_t mark = Mark();
  if (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
    n->kind = Kind::kListComp;
    n->one[0] = first;
    if (!Generators(mark)) return nullptr;
  } else {
    Push(first);
    while (EatOp(Op::kComma)) {
      if (AtOp(Op::kRSqb)) break;
      Node* next = StarNamedExpression();
      if (next == nullptr) return nullptr;
      Push(next);
    }
  }
  if (!ExpectOp(Op::kRSqb, "]")) return nullptr;
  n->many[2] = Collect(mark);
  return Finish(n);
}

Node* ParserImpl::BraceDisplay() {
  const Token& open = Cur();
  Advance();
  Node* n = New(Kind::kDict, open);
  if (EatOp(Op::kRBrace)) return Finish(n);
  size_t keys = Mark(1);
  size_t values = Mark();
  bool is_dict = false;
  Node* first = nullptr;
  if (AtOp(Op::kDoubleStar)) {
    Advance();
    Node* v = Binary(1);
    if (v == nullptr) return nullptr;
    Push(nullptr, 1);
    Push(v);
    is_dict = true;
  } else {
    first = StarNamedExpression();
    if (first == nullptr) return nullptr;
    if (EatOp(Op::kColon)) {
      Node* v = Expression();
      if (v == nullptr) return nullptr;
      is_dict = true;
      if (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
        n->kind = Kind::kDictComp;
        n->one[1] = first;
        n->one[0] = v;
        if (!Generators(values)) return nullptr;
        if (!ExpectOp(Op::kRBrace, "}")) return nullptr;
        n->many[2] = Collect(values);
        return Finish(n);
      }
      Push(first, 1);
      Push(v);
    }
  }
  if (is_dict) {
    while (EatOp(Op::kComma)) {
      if (AtOp(Op::kRBrace)) break;
      if (EatOp(Op::kDoubleStar)) {
        Node* v = Binary(1);
        if (v == nullptr) return nullptr;
        Push(nullptr, 1);
        Push(v);
        continue;
      }
      Node* k = Expression();
      if (k == nullptr || !ExpectOp(Op::kColon, ":")) return nullptr;
      Node* v = Expression();
      if (v == nullptr) return nullptr;
      Push(k, 1);
      Push(v);
    }
    if (!ExpectOp(Op::kRBrace, "}")) return nullptr;
    n->many[2] = Collect(values);
    n->many[1] = Collect(keys, 1);
    return Finish(n);
  }
  n->kind = Kind::kSet;
  if (AtKw(Keyword::kFor) || (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kFor)) {
    n->kind = Kind::kSetComp;
    n->one[0] = first;
    if (!Generators(values)) return nullptr;
  } else {
    Push(first);
    while (EatOp(Op::kComma)) {
      if (AtOp(Op::kRBrace)) break;
      Node* next = StarNamedExpression();
      if (next == nullptr) return nullptr;
      Push(next);
    }
  }
  if (!ExpectOp(Op::kRBrace, "}")) return nullptr;
  n->many[2] = Collect(values);
  return Finish(n);
}

Node* ParserImpl::Lambda() {
  Node* n = New(Kind::kLambda, Cur());
  Advance();
  if ((n->one[0] = Parameters(Op::kColon, false)) == nullptr) return nullptr;
  if (!ExpectOp(Op::kColon, ":")) return nullptr;
  if ((n->one[1] = Expression()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::YieldExpr() {
  Node* n = New(Kind::kYield, Cur());
  Advance();
  if (EatKw(Keyword::kFrom)) {
    n->kind = Kind::kYieldFrom;
    if ((n->one[0] = Expression()) == nullptr) return nullptr;
    return Finish(n);
  }
  const Token& t = Cur();
  bool ends = t.kind == TokenKind::kNewline || t.kind == TokenKind::kEnd ||
              t.op() == Op::kRPar || t.op() == Op::kRSqb || t.op() == Op::kRBrace ||
              t.op() == Op::kSemi || t.op() == Op::kEqual || t.op() == Op::kColon;
  if (!ends && (n->one[0] = StarExpressions()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::StarTargets() {
  const Token& first = Cur();
  Node* t = StarTarget();
  if (t == nullptr || !AtOp(Op::kComma)) return t;
  Node* tuple = New(Kind::kTuple, first);
  size_t mark = Mark();
  Push(t);
  while (EatOp(Op::kComma)) {
    if (AtKw(Keyword::kIn) || AtOp(Op::kEqual) || AtOp(Op::kColon) || AtOp(Op::kRPar)) break;
    Node* next = StarTarget();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  tuple->many[2] = Collect(mark);
  return Finish(tuple);
}

Node* ParserImpl::StarTarget() {
  if (AtOp(Op::kStar)) {
    Node* n = New(Kind::kStarred, Cur());
    Advance();
    if ((n->one[0] = StarTarget()) == nullptr) return nullptr;
    return Finish(n);
  }
  return Binary(1);
}

}  // namespace fastenough::pysrc
