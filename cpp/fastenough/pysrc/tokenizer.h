// Python source -> tokens, as CPython's tokenizer produces them for its parser:
// NEWLINE only at the end of logical lines (not inside brackets, not for blank
// or comment-only lines), INDENT/DEDENT from the indentation stack, comments
// and line continuations dropped, a whole string literal (f-strings included)
// as one token.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fastenough/pysrc/parser.h"
#include "fastenough/pysrc/token.h"

namespace fastenough::pysrc {

struct TokenizeRange {
  uint32_t begin = 0;  // byte offsets of the part of the source to read
  uint32_t end = 0;
  int32_t line = 1;    // the position of `begin`
  int32_t col = 0;
  // Inside an f-string's replacement field: as if within brackets, so line
  // breaks are ignored and no NEWLINE/INDENT/DEDENT are made.
  bool in_brackets = false;
};

// Appends the tokens of source[range] to `out`, ending with kEnd. Returns
// false with `error` set when the source cannot be tokenized.
bool Tokenize(std::string_view source, const TokenizeRange& range, std::vector<Token>* out,
              ParseError* error);

// The keyword a name spells, or Keyword::kNone.
Keyword KeywordOf(std::string_view name);

}  // namespace fastenough::pysrc
