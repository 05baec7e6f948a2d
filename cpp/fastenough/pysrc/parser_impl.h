// The recursive-descent parser behind ParseModule (private to pysrc/).
//
// One method per rule of CPython's grammar (Grammar/python.gram), named after
// it. Node positions follow CPython's rule: a node spans the tokens its rule
// consumed, so a node starts at the first token of its rule and ends at the
// last token consumed (Finish), or at a child's end (FinishAt).
//
// Errors: the first error is kept; every method returns nullptr (or false)
// after it, and callers pass that up. No exceptions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/pysrc/arena.h"
#include "fastenough/pysrc/parser.h"
#include "fastenough/pysrc/syntax_tree.h"
#include "fastenough/pysrc/token.h"

namespace fastenough::pysrc {

// A tree deeper than this is refused (too_deep), so that recursive walks over
// the trees we return stay well within a thread's stack.
inline constexpr int kMaxTreeDepth = 2000;
// Recursion of the parser itself (nested expressions without brackets, such as
// `not not not ...` or chained conditional expressions).
inline constexpr int kMaxRecursion = 600;

class ParserImpl {
 public:
  ParserImpl(std::string_view source, Arena& arena, std::vector<Token> tokens, ParseError* error,
             int recursion = 0)
      : src_(source), arena_(arena), toks_(std::move(tokens)), error_(error),
        recursion_(recursion) {}

  Node* File();            // file: [statements] ENDMARKER
  Node* FStringField();    // the expression of an f-string field, then ENDMARKER

 private:
  friend class FStringBuilder;
  // ---- tokens ----
  const Token& Cur() const { return toks_[p_]; }
  const Token& Peek(size_t k = 1) const {
    return toks_[p_ + k < toks_.size() ? p_ + k : toks_.size() - 1];
  }
  const Token& Prev() const { return toks_[p_ - 1]; }
  void Advance() {
    if (p_ + 1 < toks_.size()) ++p_;
  }
  bool AtOp(Op op) const { return Cur().op() == op; }
  bool AtKw(Keyword kw) const { return Cur().keyword() == kw && Cur().kind == TokenKind::kName; }
  bool AtKind(TokenKind k) const { return Cur().kind == k; }
  bool AtPlainName() const {
    return Cur().kind == TokenKind::kName && Cur().keyword() == Keyword::kNone;
  }
  bool AtSoftKeyword(std::string_view word) const { return AtPlainName() && Text(Cur()) == word; }
  bool EatOp(Op op) {
    if (!AtOp(op)) return false;
    Advance();
    return true;
  }
  bool EatKw(Keyword kw) {
    if (!AtKw(kw)) return false;
    Advance();
    return true;
  }
  bool ExpectOp(Op op, const char* what);
  bool ExpectKw(Keyword kw, const char* what);
  std::string_view Text(const Token& t) const { return src_.substr(t.begin, t.end - t.begin); }

  // ---- nodes ----
  Node* New(Kind kind, const Token& first);
  Node* NewFrom(Kind kind, const Node* first);
  Node* Finish(Node* n);                   // ends at the last consumed token
  Node* FinishAt(Node* n, const Node* last);  // ends where `last` ends
  // A compound statement ends at its last token that is not NEWLINE, INDENT or
  // DEDENT (a trailing ';' of its last line included, as in CPython).
  Node* FinishBlock(Node* n);
  Node* SetDepth(Node* n);
  Node* Name(const Token& t);
  // Lists are built on a scratch stack (LIFO across nested rules, so one
  // stack serves every nesting level) and copied into the arena when done.
  size_t Mark(int stack = 0) const { return scratch_[stack].size(); }
  void Push(Node* n, int stack = 0) { scratch_[stack].push_back(n); }
  NodeList Collect(size_t mark, int stack = 0);
  NodeList ListOf(std::initializer_list<Node*> nodes);

  // ---- errors ----
  bool failed() const { return !error_->message.empty(); }
  std::nullptr_t Fail(const Token& at, std::string message);
  std::nullptr_t FailInvalid() { return Fail(Cur(), "invalid syntax"); }
  std::nullptr_t FailTooDeep(const Token& at);
  struct RecursionGuard {
    explicit RecursionGuard(ParserImpl& p) : p(p) { ++p.recursion_; }
    ~RecursionGuard() { --p.recursion_; }
    bool ok() const { return p.recursion_ <= kMaxRecursion; }
    ParserImpl& p;
  };

  // ---- statements (parse_statements.cc) ----
  bool Statements(Kind end_kind);          // until DEDENT or ENDMARKER, onto scratch
  bool Statement();                        // one line's statements onto scratch
  bool SimpleStatements();
  Node* SimpleStatement();
  Node* ExpressionStatement();
  // ':' then an indented block or simple statements on the same line.
  NodeList BlockBody(const Token& owner, const char* what);
  Node* If(bool elif);
  Node* While();
  Node* For(const Token* async_tok);
  Node* With(const Token* async_tok);
  Node* Try();
  Node* FunctionDef(const Token* async_tok, NodeList decorators, const Token* first);
  Node* ClassDef(NodeList decorators, const Token* first);
  Node* Decorated();
  Node* Import();
  Node* ImportFrom();
  Node* Alias(bool dotted);
  Node* TypeAlias();
  NodeList TypeParams();
  Node* Parameters(Op closing, bool annotations);
  Node* Param(bool annotations, bool star_annotation);
  Node* WithItem();
  bool IsParenthesizedWithItems() const;
  bool IsMatchStatement() const;
  bool IsTypeAlias() const;

  // ---- match statements (parse_patterns.cc) ----
  Node* Match();
  Node* MatchCase();
  Node* Patterns();        // the pattern of a case: open sequence or one pattern
  Node* Pattern();         // as_pattern | or_pattern
  Node* OrPattern();
  Node* ClosedPattern();
  Node* MaybeStarPattern();
  Node* ValuePatternExpr();  // signed number, complex, string, dotted name
  Node* MappingPattern();
  Node* ClassPatternArgs(Node* cls);

  // ---- expressions (parse_expressions.cc) ----
  Node* StarExpressions();
  Node* StarExpression();
  Node* StarNamedExpression();
  Node* NamedExpression();
  Node* Expression();
  Node* Disjunction();
  Node* Conjunction();
  Node* Inversion();
  Node* Comparison();
  Node* Binary(int min_prec);
  Node* Factor();
  Node* Power();
  Node* Primary();
  Node* Atom();
  Node* Call(Node* func, const Token& start);
  // After '(' of a call or class: the arguments and the ')'. `first`: an
  // argument already parsed (the call looked for a generator first).
  bool CallArguments(NodeList* args, NodeList* keywords, Node* first = nullptr);
  Node* Slices();
  Node* Slice();
  Node* Paren();
  Node* ListDisplay();
  Node* BraceDisplay();
  bool Generators(size_t mark);
  Node* Lambda();
  Node* YieldExpr();
  Node* StarTargets();
  Node* StarTarget();
  Node* Number(const Token& t);

  // ---- strings (parse_strings.cc) ----
  Node* Strings();
  bool DecodeInto(const Token& t, std::string* out, bool* raw_escape);
  Node* ParseFieldExpression(size_t begin, size_t end);

  std::string_view src_;
  Arena& arena_;
  std::vector<Token> toks_;
  size_t p_ = 0;
  ParseError* error_;
  int recursion_ = 0;
  std::vector<Node*> scratch_[2];
  std::string buffer_;
};

}  // namespace fastenough::pysrc
