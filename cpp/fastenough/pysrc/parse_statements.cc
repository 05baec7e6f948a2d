// Statements: simple statements, blocks, and the compound statements except
// `match` (parse_patterns.cc).
#include <string>

#include "fastenough/pysrc/parser_impl.h"

namespace fastenough::pysrc {
namespace {

bool AtStatementEnd(const Token& t) {
  return t.kind == TokenKind::kNewline || t.kind == TokenKind::kEnd || t.op() == Op::kSemi;
}

}  // namespace

bool ParserImpl::Statements(Kind /*end_kind*/) {
  while (!failed()) {
    if (AtKind(TokenKind::kEnd) || AtKind(TokenKind::kDedent)) return true;
    if (AtKind(TokenKind::kIndent)) {
      Fail(Cur(), "unexpected indent");
      return false;
    }
    if (!Statement()) return false;
  }
  return false;
}

bool ParserImpl::Statement() {
  RecursionGuard guard(*this);
  if (!guard.ok()) {
    FailTooDeep(Cur());
    return false;
  }
  const Token& t = Cur();
  Node* n = nullptr;
  if (t.kind == TokenKind::kName) {
    switch (t.keyword()) {
      case Keyword::kDef: n = FunctionDef(nullptr, {}, &t); break;
      case Keyword::kIf: n = If(false); break;
      case Keyword::kClass: n = ClassDef({}, &t); break;
      case Keyword::kWith: n = With(nullptr); break;
      case Keyword::kFor: n = For(nullptr); break;
      case Keyword::kTry: n = Try(); break;
      case Keyword::kWhile: n = While(); break;
      case Keyword::kAsync: {
        Advance();
        if (AtKw(Keyword::kDef)) {
          n = FunctionDef(&t, {}, &t);
        } else if (AtKw(Keyword::kFor)) {
          n = For(&t);
        } else if (AtKw(Keyword::kWith)) {
          n = With(&t);
        } else {
          FailInvalid();
        }
        break;
      }
      case Keyword::kNone:
        if (Text(t) == "match" && IsMatchStatement()) {
          n = Match();
        } else {
          return SimpleStatements();
        }
        break;
      default: return SimpleStatements();
    }
  } else if (t.op() == Op::kAt) {
    n = Decorated();
  } else {
    return SimpleStatements();
  }
  if (n == nullptr) return false;
  Push(n);
  return true;
}

bool ParserImpl::SimpleStatements() {
  while (true) {
    Node* s = SimpleStatement();
    if (s == nullptr) return false;
    Push(s);
    if (EatOp(Op::kSemi)) {
      if (AtKind(TokenKind::kNewline)) break;
      continue;
    }
    break;
  }
  if (AtKind(TokenKind::kEnd)) return true;
  if (!AtKind(TokenKind::kNewline)) {
    FailInvalid();
    return false;
  }
  Advance();
  return true;
}

Node* ParserImpl::SimpleStatement() {
  const Token& t = Cur();
  if (t.kind == TokenKind::kName) {
    switch (t.keyword()) {
      case Keyword::kPass:
      case Keyword::kBreak:
      case Keyword::kContinue: {
        Kind k = t.keyword() == Keyword::kPass    ? Kind::kPass
                 : t.keyword() == Keyword::kBreak ? Kind::kBreak
                                                  : Kind::kContinue;
        Node* n = New(k, t);
        Advance();
        return Finish(n);
      }
      case Keyword::kReturn: {
        Node* n = New(Kind::kReturn, t);
        Advance();
        if (!AtStatementEnd(Cur())) {
          if ((n->one[0] = StarExpressions()) == nullptr) return nullptr;
        }
        return Finish(n);
      }
      case Keyword::kRaise: {
        Node* n = New(Kind::kRaise, t);
        Advance();
        if (!AtStatementEnd(Cur())) {
          if ((n->one[0] = Expression()) == nullptr) return nullptr;
          if (EatKw(Keyword::kFrom) && (n->one[1] = Expression()) == nullptr) return nullptr;
        }
        return Finish(n);
      }
      case Keyword::kGlobal:
      case Keyword::kNonlocal: {
        Node* n = New(t.keyword() == Keyword::kGlobal ? Kind::kGlobal : Kind::kNonlocal, t);
        Advance();
        size_t mark = Mark();
        do {
          if (!AtPlainName()) return FailInvalid();
          Node* id = New(Kind::kIdentifier, Cur());
          id->name = Text(Cur());
          Advance();
          Push(Finish(id));
        } while (EatOp(Op::kComma));
        n->many[2] = Collect(mark);
        return Finish(n);
      }
      case Keyword::kDel: {
        Node* n = New(Kind::kDelete, t);
        Advance();
        size_t mark = Mark();
        do {
          if (AtStatementEnd(Cur())) break;
          Node* target = Binary(1);
          if (target == nullptr) return nullptr;
          Push(target);
        } while (EatOp(Op::kComma));
        n->many[2] = Collect(mark);
        if (n->many[2].empty()) return FailInvalid();
        return Finish(n);
      }
      case Keyword::kAssert: {
        Node* n = New(Kind::kAssert, t);
        Advance();
        if ((n->one[0] = Expression()) == nullptr) return nullptr;
        if (EatOp(Op::kComma) && (n->one[1] = Expression()) == nullptr) return nullptr;
        return Finish(n);
      }
      case Keyword::kImport: return Import();
      case Keyword::kFrom: return ImportFrom();
      case Keyword::kNone:
        if (Text(t) == "type" && IsTypeAlias()) return TypeAlias();
        break;
      default: break;
    }
  }
  return ExpressionStatement();
}

Node* ParserImpl::ExpressionStatement() {
  const Token& first = Cur();
  Node* e = AtKw(Keyword::kYield) ? YieldExpr() : StarExpressions();
  if (e == nullptr) return nullptr;
  auto rhs = [&]() { return AtKw(Keyword::kYield) ? YieldExpr() : StarExpressions(); };
  if (AtOp(Op::kColon)) {
    Advance();
    Node* n = New(Kind::kAnnAssign, first);
    n->one[1] = e;
    if ((n->one[2] = Expression()) == nullptr) return nullptr;
    if (EatOp(Op::kEqual) && (n->one[0] = rhs()) == nullptr) return nullptr;
    n->op = (e->kind == Kind::kName && first.op() != Op::kLPar) ? 1 : 0;
    return Finish(n);
  }
  if (AtOp(Op::kEqual)) {
    Node* n = New(Kind::kAssign, first);
    size_t mark = Mark();
    Push(e);
    Node* value = nullptr;
    while (EatOp(Op::kEqual)) {
      if ((value = rhs()) == nullptr) return nullptr;
      if (AtOp(Op::kEqual)) Push(value);
    }
    n->many[2] = Collect(mark);
    n->one[0] = value;
    return Finish(n);
  }
  const Op op = Cur().op();
  if (op >= Op::kPlusEqual && op <= Op::kDoubleSlashEqual) {
    Advance();
    Node* n = New(Kind::kAugAssign, first);
    n->op = static_cast<uint8_t>(static_cast<int>(op) - static_cast<int>(Op::kPlusEqual));
    n->one[1] = e;
    if ((n->one[0] = rhs()) == nullptr) return nullptr;
    return Finish(n);
  }
  Node* n = New(Kind::kExpr, first);
  n->one[0] = e;
  return Finish(n);
}

NodeList ParserImpl::BlockBody(const Token& owner, const char* what) {
  if (!ExpectOp(Op::kColon, ":")) return {};
  size_t mark = Mark();
  if (AtKind(TokenKind::kNewline)) {
    Advance();
    if (!AtKind(TokenKind::kIndent)) {
      Fail(Cur(), std::string("expected an indented block after ") + what + " on line " +
                      std::to_string(owner.line));
      return {};
    }
    Advance();
    if (!Statements(Kind::kModule)) return {};
    if (!AtKind(TokenKind::kDedent)) {
      FailInvalid();
      return {};
    }
    Advance();
  } else if (!SimpleStatements()) {
    return {};
  }
  return Collect(mark);
}

Node* ParserImpl::If(bool elif) {
  const Token& t = Cur();
  Advance();
  Node* n = New(Kind::kIf, t);
  if ((n->one[0] = NamedExpression()) == nullptr) return nullptr;
  n->many[0] = BlockBody(t, elif ? "'elif' statement" : "'if' statement");
  if (failed()) return nullptr;
  if (AtKw(Keyword::kElif)) {
    RecursionGuard guard(*this);
    if (!guard.ok()) return FailTooDeep(Cur());
    Node* inner = If(true);
    if (inner == nullptr) return nullptr;
    n->many[1] = ListOf({inner});
  } else if (AtKw(Keyword::kElse)) {
    const Token& e = Cur();
    Advance();
    n->many[1] = BlockBody(e, "'else' statement");
    if (failed()) return nullptr;
  }
  return FinishBlock(n);
}

Node* ParserImpl::While() {
  const Token& t = Cur();
  Advance();
  Node* n = New(Kind::kWhile, t);
  if ((n->one[0] = NamedExpression()) == nullptr) return nullptr;
  n->many[0] = BlockBody(t, "'while' statement");
  if (failed()) return nullptr;
  if (AtKw(Keyword::kElse)) {
    const Token& e = Cur();
    Advance();
    n->many[1] = BlockBody(e, "'else' statement");
    if (failed()) return nullptr;
  }
  return FinishBlock(n);
}

Node* ParserImpl::For(const Token* async_tok) {
  const Token& t = Cur();
  Advance();
  Node* n = New(async_tok ? Kind::kAsyncFor : Kind::kFor, async_tok ? *async_tok : t);
  if ((n->one[1] = StarTargets()) == nullptr) return nullptr;
  if (!ExpectKw(Keyword::kIn, "in")) return nullptr;
  if ((n->one[2] = StarExpressions()) == nullptr) return nullptr;
  n->many[0] = BlockBody(t, "'for' statement");
  if (failed()) return nullptr;
  if (AtKw(Keyword::kElse)) {
    const Token& e = Cur();
    Advance();
    n->many[1] = BlockBody(e, "'else' statement");
    if (failed()) return nullptr;
  }
  return FinishBlock(n);
}

bool ParserImpl::IsParenthesizedWithItems() const {
  // `with (a as b, c):` versus `with (a, b) as c:` / `with (yield x):`: find the
  // matching ')' and look at what follows it.
  int depth = 0;
  for (size_t i = p_; i < toks_.size(); ++i) {
    switch (toks_[i].op()) {
      case Op::kLPar: case Op::kLSqb: case Op::kLBrace: ++depth; break;
      case Op::kRPar: case Op::kRSqb: case Op::kRBrace:
        if (--depth == 0) return i + 1 < toks_.size() && toks_[i + 1].op() == Op::kColon;
        break;
      default:
        if (toks_[i].kind == TokenKind::kNewline || toks_[i].kind == TokenKind::kEnd) return false;
        break;
    }
  }
  return false;
}

Node* ParserImpl::WithItem() {
  Node* n = New(Kind::kWithItem, Cur());
  if ((n->one[0] = Expression()) == nullptr) return nullptr;
  if (EatKw(Keyword::kAs) && (n->one[1] = StarTarget()) == nullptr) return nullptr;
  n->line = n->col = 0;  // withitem has no position in ast
  return SetDepth(n);
}

Node* ParserImpl::With(const Token* async_tok) {
  const Token& t = Cur();
  Advance();
  Node* n = New(async_tok ? Kind::kAsyncWith : Kind::kWith, async_tok ? *async_tok : t);
  size_t mark = Mark();
  if (AtOp(Op::kLPar) && IsParenthesizedWithItems()) {
    Advance();
    while (!AtOp(Op::kRPar)) {
      Node* item = WithItem();
      if (item == nullptr) return nullptr;
      Push(item);
      if (!EatOp(Op::kComma)) break;
    }
    if (!ExpectOp(Op::kRPar, ")")) return nullptr;
  } else {
    do {
      Node* item = WithItem();
      if (item == nullptr) return nullptr;
      Push(item);
    } while (EatOp(Op::kComma));
  }
  n->many[2] = Collect(mark);
  n->many[0] = BlockBody(t, "'with' statement");
  if (failed()) return nullptr;
  return FinishBlock(n);
}

Node* ParserImpl::Try() {
  const Token& t = Cur();
  Advance();
  Node* n = New(Kind::kTry, t);
  n->many[0] = BlockBody(t, "'try' statement");
  if (failed()) return nullptr;
  size_t mark = Mark();
  while (AtKw(Keyword::kExcept)) {
    const Token& h = Cur();
    Advance();
    if (EatOp(Op::kStar)) n->kind = Kind::kTryStar;
    Node* handler = New(Kind::kExceptHandler, h);
    if (!AtOp(Op::kColon)) {
      Node* type = Expression();
      if (type == nullptr) return nullptr;
      if (AtOp(Op::kComma)) {  // Python 3.14: `except A, B:` without parentheses
        Node* tuple = NewFrom(Kind::kTuple, type);
        size_t elts = Mark();
        Push(type);
        while (EatOp(Op::kComma)) {
          if (AtOp(Op::kColon)) break;
          Node* e = Expression();
          if (e == nullptr) return nullptr;
          Push(e);
        }
        tuple->many[2] = Collect(elts);
        type = Finish(tuple);
        if (type == nullptr) return nullptr;
      }
      handler->one[0] = type;
      if (EatKw(Keyword::kAs)) {
        if (!AtPlainName()) return FailInvalid();
        handler->name = Text(Cur());
        Advance();
      }
    }
    handler->many[0] = BlockBody(h, "'except' statement");
    if (failed()) return nullptr;
    Push(FinishBlock(handler));
  }
  n->many[2] = Collect(mark);
  if (AtKw(Keyword::kElse)) {
    const Token& e = Cur();
    Advance();
    n->many[1] = BlockBody(e, "'else' statement");
    if (failed()) return nullptr;
  }
  if (AtKw(Keyword::kFinally)) {
    const Token& f = Cur();
    Advance();
    n->many[3] = BlockBody(f, "'finally' statement");
    if (failed()) return nullptr;
  }
  if (n->many[2].empty() && n->many[3].empty()) {
    return Fail(Cur(), "expected 'except' or 'finally' block");
  }
  return FinishBlock(n);
}

Node* ParserImpl::Decorated() {
  size_t mark = Mark();
  while (AtOp(Op::kAt)) {
    Advance();
    Node* d = NamedExpression();
    if (d == nullptr) return nullptr;
    Push(d);
    if (!AtKind(TokenKind::kNewline)) return FailInvalid();
    Advance();
  }
  NodeList decorators = Collect(mark);
  const Token& t = Cur();
  if (AtKw(Keyword::kDef)) return FunctionDef(nullptr, decorators, &t);
  if (AtKw(Keyword::kClass)) return ClassDef(decorators, &t);
  if (AtKw(Keyword::kAsync) && Peek().keyword() == Keyword::kDef) {
    Advance();
    return FunctionDef(&t, decorators, &t);
  }
  return FailInvalid();
}

Node* ParserImpl::FunctionDef(const Token* async_tok, NodeList decorators, const Token* first) {
  const Token& def = Cur();
  Advance();
  Node* n = New(async_tok ? Kind::kAsyncFunctionDef : Kind::kFunctionDef, *first);
  if (!AtPlainName()) return FailInvalid();
  n->name = Text(Cur());
  Advance();
  if (AtOp(Op::kLSqb)) {
    n->many[4] = TypeParams();
    if (failed()) return nullptr;
  }
  if (!ExpectOp(Op::kLPar, "(")) return nullptr;
  if ((n->one[0] = Parameters(Op::kRPar, true)) == nullptr) return nullptr;
  if (!ExpectOp(Op::kRPar, ")")) return nullptr;
  if (EatOp(Op::kRArrow) && (n->one[1] = Expression()) == nullptr) return nullptr;
  n->many[1] = decorators;
  n->many[0] = BlockBody(def, "function definition");
  if (failed()) return nullptr;
  return FinishBlock(n);
}

Node* ParserImpl::ClassDef(NodeList decorators, const Token* first) {
  const Token& cls = Cur();
  Advance();
  Node* n = New(Kind::kClassDef, *first);
  if (!AtPlainName()) return FailInvalid();
  n->name = Text(Cur());
  Advance();
  if (AtOp(Op::kLSqb)) {
    n->many[4] = TypeParams();
    if (failed()) return nullptr;
  }
  if (EatOp(Op::kLPar)) {
    if (!CallArguments(&n->many[2], &n->many[3])) return nullptr;
  }
  n->many[1] = decorators;
  n->many[0] = BlockBody(cls, "class definition");
  if (failed()) return nullptr;
  return FinishBlock(n);
}

Node* ParserImpl::Param(bool annotations, bool star_annotation) {
  if (!AtPlainName()) return FailInvalid();
  Node* n = New(Kind::kArg, Cur());
  n->name = Text(Cur());
  Advance();
  if (annotations && EatOp(Op::kColon)) {
    if (star_annotation && AtOp(Op::kStar)) {
      Node* star = New(Kind::kStarred, Cur());
      Advance();
      if ((star->one[0] = Expression()) == nullptr) return nullptr;
      n->one[2] = Finish(star);
    } else {
      n->one[2] = Expression();
    }
    if (n->one[2] == nullptr) return nullptr;
  }
  return Finish(n);
}

Node* ParserImpl::Parameters(Op closing, bool annotations) {
  Node* a = arena_.New<Node>();
  a->kind = Kind::kArguments;
  // Five lists fill at once: keep them in local vectors (definitions are few).
  std::vector<Node*> posonly, args, defaults, kwonly, kw_defaults;
  bool star_seen = false;
  while (!AtOp(closing)) {
    if (AtOp(Op::kSlash)) {
      Advance();
      posonly.insert(posonly.end(), args.begin(), args.end());
      args.clear();
    } else if (AtOp(Op::kStar)) {
      Advance();
      star_seen = true;
      if (!AtOp(Op::kComma) && !AtOp(closing)) {
        if ((a->one[0] = Param(annotations, true)) == nullptr) return nullptr;
      }
    } else if (AtOp(Op::kDoubleStar)) {
      Advance();
      if ((a->one[1] = Param(annotations, false)) == nullptr) return nullptr;
    } else {
      Node* p = Param(annotations, false);
      if (p == nullptr) return nullptr;
      Node* dflt = nullptr;
      if (EatOp(Op::kEqual) && (dflt = Expression()) == nullptr) return nullptr;
      if (star_seen) {
        kwonly.push_back(p);
        kw_defaults.push_back(dflt);
      } else {
        if (dflt == nullptr && !defaults.empty()) {
          return Fail(Prev(), "non-default argument follows default argument");
        }
        args.push_back(p);
        if (dflt != nullptr) defaults.push_back(dflt);
      }
    }
    if (!EatOp(Op::kComma)) break;
  }
  auto list = [&](const std::vector<Node*>& v) {
    size_t mark = Mark();
    for (Node* x : v) Push(x);
    return Collect(mark);
  };
  a->many[0] = list(posonly);
  a->many[2] = list(args);
  a->many[1] = list(defaults);
  a->many[3] = list(kwonly);
  a->many[4] = list(kw_defaults);
  return SetDepth(a);
}

NodeList ParserImpl::TypeParams() {
  Advance();  // '['
  size_t mark = Mark();
  while (!AtOp(Op::kRSqb)) {
    const Token& t = Cur();
    Kind kind = Kind::kTypeVar;
    if (EatOp(Op::kStar)) {
      kind = Kind::kTypeVarTuple;
    } else if (EatOp(Op::kDoubleStar)) {
      kind = Kind::kParamSpec;
    }
    if (!AtPlainName()) {
      FailInvalid();
      return {};
    }
    Node* n = New(kind, t);
    n->name = Text(Cur());
    Advance();
    if (kind == Kind::kTypeVar && EatOp(Op::kColon) && (n->one[0] = Expression()) == nullptr) {
      return {};
    }
    if (EatOp(Op::kEqual) && (n->one[2] = Expression()) == nullptr) return {};
    if (Finish(n) == nullptr) return {};
    Push(n);
    if (!EatOp(Op::kComma)) break;
  }
  if (!ExpectOp(Op::kRSqb, "]")) return {};
  return Collect(mark);
}

bool ParserImpl::IsTypeAlias() const {
  // `type X = ...` / `type X[T] = ...`; `type = 3` and `type(x)` are code.
  if (Peek(1).kind != TokenKind::kName || Peek(1).keyword() != Keyword::kNone) return false;
  Op next = Peek(2).op();
  return next == Op::kEqual || next == Op::kLSqb;
}

Node* ParserImpl::TypeAlias() {
  Node* n = New(Kind::kTypeAlias, Cur());
  Advance();  // 'type'
  n->one[1] = Name(Cur());
  Advance();
  if (AtOp(Op::kLSqb)) {
    n->many[4] = TypeParams();
    if (failed()) return nullptr;
  }
  if (!ExpectOp(Op::kEqual, "=")) return nullptr;
  if ((n->one[0] = Expression()) == nullptr) return nullptr;
  return Finish(n);
}

Node* ParserImpl::Alias(bool dotted) {
  const Token& first = Cur();
  if (first.kind != TokenKind::kName) return FailInvalid();
  Node* n = New(Kind::kAlias, first);
  Advance();
  if (dotted && AtOp(Op::kDot)) {
    std::string name(Text(first));
    while (EatOp(Op::kDot)) {
      if (!AtKind(TokenKind::kName)) return FailInvalid();
      name += '.';
      name += Text(Cur());
      Advance();
    }
    n->name = arena_.Copy(name);
  } else {
    n->name = Text(first);
  }
  if (EatKw(Keyword::kAs)) {
    if (!AtPlainName()) return FailInvalid();
    n->asname = Text(Cur());
    Advance();
  }
  return Finish(n);
}

Node* ParserImpl::Import() {
  Node* n = New(Kind::kImport, Cur());
  Advance();
  size_t mark = Mark();
  do {
    Node* a = Alias(true);
    if (a == nullptr) return nullptr;
    Push(a);
  } while (EatOp(Op::kComma));
  n->many[2] = Collect(mark);
  return Finish(n);
}

Node* ParserImpl::ImportFrom() {
  Node* n = New(Kind::kImportFrom, Cur());
  Advance();
  int level = 0;
  while (AtOp(Op::kDot) || AtOp(Op::kEllipsis)) {
    level += AtOp(Op::kDot) ? 1 : 3;
    Advance();
  }
  n->op = static_cast<uint8_t>(level > 255 ? 255 : level);
  if (!AtKw(Keyword::kImport)) {
    if (!AtKind(TokenKind::kName)) return FailInvalid();
    std::string module(Text(Cur()));
    bool copied = false;
    Advance();
    while (EatOp(Op::kDot)) {
      if (!AtKind(TokenKind::kName)) return FailInvalid();
      module += '.';
      module += Text(Cur());
      copied = true;
      Advance();
    }
    n->name = copied ? arena_.Copy(module) : Text(Prev());
  }
  if (!ExpectKw(Keyword::kImport, "import")) return nullptr;
  size_t mark = Mark();
  if (AtOp(Op::kStar)) {
    Node* a = New(Kind::kAlias, Cur());
    a->name = "*";
    Advance();
    Push(Finish(a));
  } else {
    bool paren = EatOp(Op::kLPar);
    do {
      if (paren && AtOp(Op::kRPar)) break;
      Node* a = Alias(false);
      if (a == nullptr) return nullptr;
      Push(a);
    } while (EatOp(Op::kComma));
    if (paren && !ExpectOp(Op::kRPar, ")")) return nullptr;
  }
  n->many[2] = Collect(mark);
  if (n->many[2].empty()) return FailInvalid();
  return Finish(n);
}

}  // namespace fastenough::pysrc
