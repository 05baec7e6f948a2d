// ParseModule and the node/error helpers every part of the parser shares.
#include "fastenough/pysrc/parser.h"

#include <algorithm>
#include <cstring>

#include "fastenough/pysrc/parser_impl.h"
#include "fastenough/pysrc/tokenizer.h"

namespace fastenough::pysrc {

namespace {

// Which error CPython reports when the tokenizer fails somewhere in the file
// (pegen_errors.c). Its parser pulls tokens lazily: a syntax error found
// before the parser needs the failing token stands (`def f(:` is "invalid
// syntax", not "'(' was never closed"), unless the tokenizer's error is an
// unclosed bracket opened on an earlier line than the syntax error, or another
// tokenizer error (an unterminated string), which take precedence. Parse the
// tokens read so far to find out. (CPython's second pass over invalid_* rules
// can read further than ours, so on the bracket's own line it sometimes still
// reports the bracket; we report the syntax error there.)
ParseResult ParseUpToTokenizerError(std::string_view source, Arena& arena,
                                    std::vector<Token> tokens, ParseResult& result) {
  while (!tokens.empty() && tokens.back().kind == TokenKind::kEnd) tokens.pop_back();
  if (tokens.empty()) return result;
  const Token last = tokens.back();
  Token end;
  end.kind = TokenKind::kEnd;
  end.begin = end.end = last.end;
  end.line = end.end_line = last.end_line;
  end.col = end.end_col = last.end_col;
  tokens.push_back(end);
  ParseError parser_error;
  ParserImpl parser(source, arena, std::move(tokens), &parser_error);
  parser.File();
  if (parser_error.message.empty() || parser_error.too_deep) return result;
  // An error at the end marker: the parser wanted the token that failed.
  const bool needed_more = parser_error.line > end.line ||
                           (parser_error.line == end.line && parser_error.col >= end.col);
  const bool unclosed_bracket = result.error.message.ends_with("was never closed");
  if (!needed_more && unclosed_bracket && result.error.line >= parser_error.line) {
    result.error = std::move(parser_error);
  }
  return result;
}

}  // namespace

ParseResult ParseModule(std::string_view source, Arena& arena) {
  ParseResult result;
  if (source.size() >= 0xFFFFFFF0u) {
    result.error.message = "file too large to parse";
    return result;
  }
  std::vector<Token> tokens;
  TokenizeRange range;
  range.end = static_cast<uint32_t>(source.size());
  if (!Tokenize(source, range, &tokens, &result.error)) {
    return ParseUpToTokenizerError(source, arena, std::move(tokens), result);
  }
  ParserImpl parser(source, arena, std::move(tokens), &result.error);
  const Node* module = parser.File();
  if (result.error.message.empty()) result.module = module;
  return result;
}

bool ParserImpl::ExpectOp(Op op, const char* what) {
  if (EatOp(op)) return true;
  Fail(Cur(), std::string("expected '") + what + "'");
  return false;
}

bool ParserImpl::ExpectKw(Keyword kw, const char* what) {
  if (EatKw(kw)) return true;
  Fail(Cur(), std::string("expected '") + what + "'");
  return false;
}

Node* ParserImpl::New(Kind kind, const Token& first) {
  Node* n = arena_.New<Node>();
  n->kind = kind;
  n->line = first.line;
  n->col = first.col;
  return n;
}

Node* ParserImpl::NewFrom(Kind kind, const Node* first) {
  Node* n = arena_.New<Node>();
  n->kind = kind;
  n->line = first->line;
  n->col = first->col;
  return n;
}

Node* ParserImpl::SetDepth(Node* n) {
  int depth = 0;
  for (const Node* c : n->one) {
    if (c != nullptr) depth = std::max<int>(depth, c->depth);
  }
  for (const NodeList& l : n->many) {
    for (const Node* c : l) {
      if (c != nullptr) depth = std::max<int>(depth, c->depth);
    }
  }
  if (depth + 1 > kMaxTreeDepth) return FailTooDeep(Prev());
  n->depth = static_cast<uint16_t>(depth + 1);
  return n;
}

Node* ParserImpl::Finish(Node* n) {
  const Token& last = Prev();
  n->end_line = last.end_line;
  n->end_col = last.end_col;
  return SetDepth(n);
}

Node* ParserImpl::FinishBlock(Node* n) {
  size_t i = p_;
  while (i > 0) {
    TokenKind k = toks_[i - 1].kind;
    if (k != TokenKind::kNewline && k != TokenKind::kIndent && k != TokenKind::kDedent) break;
    --i;
  }
  const Token& last = toks_[i > 0 ? i - 1 : 0];
  n->end_line = last.end_line;
  n->end_col = last.end_col;
  return SetDepth(n);
}

Node* ParserImpl::FinishAt(Node* n, const Node* last) {
  n->end_line = last->end_line;
  n->end_col = last->end_col;
  return SetDepth(n);
}

Node* ParserImpl::Name(const Token& t) {
  Node* n = New(Kind::kName, t);
  n->name = Text(t);
  n->end_line = t.end_line;
  n->end_col = t.end_col;
  return n;
}

NodeList ParserImpl::Collect(size_t mark, int stack) {
  std::vector<Node*>& s = scratch_[stack];
  NodeList list;
  list.count = static_cast<uint32_t>(s.size() - mark);
  if (list.count > 0) {
    Node** data = static_cast<Node**>(arena_.Allocate(sizeof(Node*) * list.count, alignof(Node*)));
    std::memcpy(data, s.data() + mark, sizeof(Node*) * list.count);
    list.data = data;
  }
  s.resize(mark);
  return list;
}

NodeList ParserImpl::ListOf(std::initializer_list<Node*> nodes) {
  size_t mark = Mark();
  for (Node* n : nodes) Push(n);
  return Collect(mark);
}

std::nullptr_t ParserImpl::Fail(const Token& at, std::string message) {
  if (error_->message.empty()) {
    error_->line = at.line;
    error_->col = at.col;
    error_->message = std::move(message);
  }
  return nullptr;
}

std::nullptr_t ParserImpl::FailTooDeep(const Token& at) {
  if (error_->message.empty()) error_->too_deep = true;
  return Fail(at, "too many nested parentheses or expressions");
}

Node* ParserImpl::File() {
  Node* module = arena_.New<Node>();
  module->kind = Kind::kModule;
  size_t mark = Mark();
  if (!Statements(Kind::kModule)) return nullptr;
  if (!AtKind(TokenKind::kEnd)) return FailInvalid();
  module->many[0] = Collect(mark);
  return module;
}

Node* ParserImpl::FStringField() {
  Node* e = AtKw(Keyword::kYield) ? YieldExpr() : StarExpressions();
  if (e == nullptr) return nullptr;
  if (!AtKind(TokenKind::kEnd)) return Fail(Cur(), "f-string: expecting '}'");
  return e;
}

}  // namespace fastenough::pysrc
