// Parse Python source (3.8 to 3.13 syntax) into the tree of syntax_tree.h.
//
// The parser is a hand-written recursive descent over CPython's grammar
// (Grammar/python.gram), checked node for node against CPython's own `ast`
// over whole installed packages (tests/python/lint/test_pysrc_parser.py). It is
// stricter than nothing and looser than CPython: it rejects what does not fit
// the grammar's shape (unbalanced brackets, a missing colon, bad indentation,
// an unterminated string), but not every semantic check of CPython's compiler
// (assignment to a literal, `return` outside a function, duplicate arguments).
// Lint reports a file it cannot parse and goes on with the others.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fastenough/pysrc/arena.h"
#include "fastenough/pysrc/syntax_tree.h"

namespace fastenough::pysrc {

struct ParseError {
  int32_t line = 0;  // 1-based; 0 when not tied to a line
  int32_t col = 0;   // 0-based byte column
  std::string message;  // "invalid syntax", "unterminated string literal", ...
  bool too_deep = false;  // nesting beyond the parser's limit (CPython's is similar)
};

struct ParseResult {
  const Node* module = nullptr;  // kModule; nullptr on error
  ParseError error;
  bool ok() const { return module != nullptr; }
};

// Parses `source` (UTF-8 text, BOM already removed) with its nodes in `arena`.
// The tree's string_views point into `source` and `arena`: both must outlive it.
// Never throws; a file that is not Python gives an error, never a crash.
ParseResult ParseModule(std::string_view source, Arena& arena);

// Nesting limit of brackets and of the parser's recursion (CPython: 200
// brackets; its parser stops near 1000 levels of recursion).
inline constexpr int kMaxNesting = 200;

}  // namespace fastenough::pysrc
