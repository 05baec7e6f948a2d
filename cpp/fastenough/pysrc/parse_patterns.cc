// The match statement (Python 3.10) and its patterns.
#include <vector>

#include "fastenough/pysrc/parser_impl.h"

namespace fastenough::pysrc {

bool ParserImpl::IsMatchStatement() const {
  // `match` is a soft keyword: a statement `match <subject>:` followed by an
  // indented block of `case` clauses. Anything else (`match = re.match(...)`,
  // `match(x)`) is an ordinary statement.
  Op next = Peek().op();
  if (next == Op::kEqual || next == Op::kDot || next == Op::kColon || next == Op::kComma ||
      Peek().kind == TokenKind::kNewline || Peek().kind == TokenKind::kEnd ||
      (next >= Op::kPlusEqual && next <= Op::kDoubleSlashEqual)) {
    return false;
  }
  size_t i = p_ + 1;
  while (i < toks_.size() && toks_[i].kind != TokenKind::kNewline &&
         toks_[i].kind != TokenKind::kEnd) {
    ++i;
  }
  return i + 2 < toks_.size() && toks_[i - 1].op() == Op::kColon &&
         toks_[i + 1].kind == TokenKind::kIndent && toks_[i + 2].kind == TokenKind::kName &&
         Text(toks_[i + 2]) == "case";
}

Node* ParserImpl::Match() {
  const Token& t = Cur();
  Advance();  // 'match'
  Node* n = New(Kind::kMatch, t);
  const Token& first = Cur();
  Node* subject = StarNamedExpression();
  if (subject == nullptr) return nullptr;
  if (AtOp(Op::kComma)) {
    Node* tuple = New(Kind::kTuple, first);
    size_t mark = Mark();
    Push(subject);
    while (EatOp(Op::kComma)) {
      if (AtOp(Op::kColon)) break;
      Node* e = StarNamedExpression();
      if (e == nullptr) return nullptr;
      Push(e);
    }
    tuple->many[2] = Collect(mark);
    if ((subject = Finish(tuple)) == nullptr) return nullptr;
  }
  n->one[0] = subject;
  if (!ExpectOp(Op::kColon, ":")) return nullptr;
  if (!AtKind(TokenKind::kNewline)) return FailInvalid();
  Advance();
  if (!AtKind(TokenKind::kIndent)) return FailInvalid();
  Advance();
  size_t mark = Mark();
  while (AtSoftKeyword("case")) {
    Node* c = MatchCase();
    if (c == nullptr) return nullptr;
    Push(c);
  }
  if (!AtKind(TokenKind::kDedent)) return FailInvalid();
  Advance();
  n->many[2] = Collect(mark);
  if (n->many[2].empty()) return FailInvalid();
  return FinishBlock(n);
}

Node* ParserImpl::MatchCase() {
  const Token& t = Cur();
  Advance();  // 'case'
  Node* c = New(Kind::kMatchCase, t);
  if ((c->one[0] = Patterns()) == nullptr) return nullptr;
  if (EatKw(Keyword::kIf) && (c->one[1] = NamedExpression()) == nullptr) return nullptr;
  c->many[0] = BlockBody(t, "'case' statement");
  if (failed()) return nullptr;
  c->line = c->col = 0;  // match_case has no position in ast
  return SetDepth(c);
}

Node* ParserImpl::Patterns() {
  const Token& first = Cur();
  Node* p = MaybeStarPattern();
  if (p == nullptr) return nullptr;
  if (!AtOp(Op::kComma) && p->kind != Kind::kMatchStar) return p;
  Node* seq = New(Kind::kMatchSequence, first);
  size_t mark = Mark();
  Push(p);
  while (EatOp(Op::kComma)) {
    if (AtOp(Op::kColon) || AtKw(Keyword::kIf)) break;
    Node* next = MaybeStarPattern();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  seq->many[2] = Collect(mark);
  return Finish(seq);
}

Node* ParserImpl::MaybeStarPattern() {
  if (!AtOp(Op::kStar)) return Pattern();
  Node* n = New(Kind::kMatchStar, Cur());
  Advance();
  if (!AtPlainName()) return FailInvalid();
  if (Text(Cur()) != "_") n->name = Text(Cur());
  Advance();
  return Finish(n);
}

Node* ParserImpl::Pattern() {
  RecursionGuard guard(*this);
  if (!guard.ok()) return FailTooDeep(Cur());
  const Token& start = Cur();
  Node* p = OrPattern();
  if (p == nullptr || !AtKw(Keyword::kAs)) return p;
  Advance();
  if (!AtPlainName() || Text(Cur()) == "_") return FailInvalid();
  Node* n = New(Kind::kMatchAs, start);
  n->one[0] = p;
  n->name = Text(Cur());
  Advance();
  return Finish(n);
}

Node* ParserImpl::OrPattern() {
  const Token& start = Cur();
  Node* first = ClosedPattern();
  if (first == nullptr || !AtOp(Op::kVBar)) return first;
  Node* n = New(Kind::kMatchOr, start);
  size_t mark = Mark();
  Push(first);
  while (EatOp(Op::kVBar)) {
    Node* next = ClosedPattern();
    if (next == nullptr) return nullptr;
    Push(next);
  }
  n->many[2] = Collect(mark);
  return Finish(n);
}

// A literal's expression: a signed number, a complex `1 + 2j`, or strings.
Node* ParserImpl::ValuePatternExpr() {
  if (AtKind(TokenKind::kString)) return Strings();
  Node* e = nullptr;
  if (AtOp(Op::kMinus)) {
    Node* neg = New(Kind::kUnaryOp, Cur());
    neg->op = static_cast<uint8_t>(UnaryOperator::kUSub);
    Advance();
    if (!AtKind(TokenKind::kNumber)) return FailInvalid();
    Advance();
    neg->one[0] = Number(Prev());
    if (neg->one[0] == nullptr) return nullptr;
    e = Finish(neg);
  } else if (AtKind(TokenKind::kNumber)) {
    Advance();
    e = Number(Prev());
  } else {
    return FailInvalid();
  }
  if (e != nullptr && (AtOp(Op::kPlus) || AtOp(Op::kMinus)) &&
      Peek().kind == TokenKind::kNumber) {
    Node* bin = NewFrom(Kind::kBinOp, e);
    bin->op = static_cast<uint8_t>(AtOp(Op::kPlus) ? BinOperator::kAdd : BinOperator::kSub);
    Advance();
    Advance();
    bin->one[0] = e;
    if ((bin->one[1] = Number(Prev())) == nullptr) return nullptr;
    e = Finish(bin);
  }
  return e;
}

Node* ParserImpl::ClosedPattern() {
  const Token& t = Cur();
  if (t.kind == TokenKind::kNumber || t.kind == TokenKind::kString || t.op() == Op::kMinus) {
    Node* value = ValuePatternExpr();
    if (value == nullptr) return nullptr;
    Node* n = NewFrom(Kind::kMatchValue, value);
    n->one[0] = value;
    return FinishAt(n, value);
  }
  if (t.kind == TokenKind::kName) {
    Keyword kw = t.keyword();
    if (kw == Keyword::kNoneKw || kw == Keyword::kTrue || kw == Keyword::kFalse) {
      Node* n = New(Kind::kMatchSingleton, t);
      n->op = static_cast<uint8_t>(kw == Keyword::kNoneKw ? ConstantKind::kNone
                                   : kw == Keyword::kTrue ? ConstantKind::kTrue
                                                          : ConstantKind::kFalse);
      Advance();
      return Finish(n);
    }
    if (kw != Keyword::kNone) return FailInvalid();
    Node* e = Name(t);
    Advance();
    while (AtOp(Op::kDot)) {
      Advance();
      if (!AtKind(TokenKind::kName)) return FailInvalid();
      Node* a = NewFrom(Kind::kAttribute, e);
      a->one[0] = e;
      a->name = Text(Cur());
      Advance();
      if ((e = Finish(a)) == nullptr) return nullptr;
    }
    if (AtOp(Op::kLPar)) return ClassPatternArgs(e);
    if (e->kind == Kind::kAttribute) {
      Node* n = NewFrom(Kind::kMatchValue, e);
      n->one[0] = e;
      return FinishAt(n, e);
    }
    Node* n = New(Kind::kMatchAs, t);
    if (Text(t) != "_") n->name = Text(t);
    return Finish(n);
  }
  if (t.op() == Op::kLPar || t.op() == Op::kLSqb) {
    const bool paren = t.op() == Op::kLPar;
    const Op close = paren ? Op::kRPar : Op::kRSqb;
    Advance();
    Node* seq = New(Kind::kMatchSequence, t);
    size_t mark = Mark();
    if (!AtOp(close)) {
      Node* first = MaybeStarPattern();
      if (first == nullptr) return nullptr;
      if (paren && AtOp(close) && first->kind != Kind::kMatchStar) {
        Advance();
        return first;  // a group: (pattern)
      }
      Push(first);
      while (EatOp(Op::kComma)) {
        if (AtOp(close)) break;
        Node* next = MaybeStarPattern();
        if (next == nullptr) return nullptr;
        Push(next);
      }
    }
    if (!ExpectOp(close, paren ? ")" : "]")) return nullptr;
    seq->many[2] = Collect(mark);
    return Finish(seq);
  }
  if (t.op() == Op::kLBrace) return MappingPattern();
  return FailInvalid();
}

Node* ParserImpl::MappingPattern() {
  Node* n = New(Kind::kMatchMapping, Cur());
  Advance();  // '{'
  size_t keys = Mark(1);
  size_t patterns = Mark();
  while (!AtOp(Op::kRBrace)) {
    if (EatOp(Op::kDoubleStar)) {
      if (!AtPlainName()) return FailInvalid();
      n->name = Text(Cur());
      Advance();
    } else {
      Node* key;
      const Token& t = Cur();
      if (t.kind == TokenKind::kName && t.keyword() != Keyword::kNone) {
        key = New(Kind::kConstant, t);
        key->op = static_cast<uint8_t>(t.keyword() == Keyword::kNoneKw ? ConstantKind::kNone
                                       : t.keyword() == Keyword::kTrue ? ConstantKind::kTrue
                                                                       : ConstantKind::kFalse);
        key->text = Text(t);
        Advance();
        key = Finish(key);
      } else if (t.kind == TokenKind::kName) {
        key = Name(t);
        Advance();
        while (AtOp(Op::kDot)) {
          Advance();
          if (!AtKind(TokenKind::kName)) return FailInvalid();
          Node* a = NewFrom(Kind::kAttribute, key);
          a->one[0] = key;
          a->name = Text(Cur());
          Advance();
          if ((key = Finish(a)) == nullptr) return nullptr;
        }
      } else {
        key = ValuePatternExpr();
      }
      if (key == nullptr || !ExpectOp(Op::kColon, ":")) return nullptr;
      Node* value = Pattern();
      if (value == nullptr) return nullptr;
      Push(key, 1);
      Push(value);
    }
    if (!EatOp(Op::kComma)) break;
  }
  if (!ExpectOp(Op::kRBrace, "}")) return nullptr;
  n->many[2] = Collect(patterns);
  n->many[1] = Collect(keys, 1);
  return Finish(n);
}

Node* ParserImpl::ClassPatternArgs(Node* cls) {
  Advance();  // '('
  Node* n = NewFrom(Kind::kMatchClass, cls);
  n->one[0] = cls;
  size_t positional = Mark();
  std::vector<Node*> attrs, kwd_patterns;
  while (!AtOp(Op::kRPar)) {
    if (AtPlainName() && Peek().op() == Op::kEqual) {
      Node* id = New(Kind::kIdentifier, Cur());
      id->name = Text(Cur());
      Advance();
      Finish(id);
      Advance();  // '='
      Node* p = Pattern();
      if (p == nullptr) return nullptr;
      attrs.push_back(id);
      kwd_patterns.push_back(p);
    } else {
      Node* p = Pattern();
      if (p == nullptr) return nullptr;
      Push(p);
    }
    if (!EatOp(Op::kComma)) break;
  }
  if (!ExpectOp(Op::kRPar, ")")) return nullptr;
  n->many[2] = Collect(positional);
  size_t mark = Mark();
  for (Node* a : attrs) Push(a);
  n->many[3] = Collect(mark);
  for (Node* p : kwd_patterns) Push(p);
  n->many[4] = Collect(mark);
  return Finish(n);
}

}  // namespace fastenough::pysrc
