// The inside of an f-string: literal text and replacement fields `{expr!r:spec}`.
//
// Scanning follows PEP 701 (Python 3.12): a replacement field is code, so it
// may hold brackets and string literals of any quote, nested f-strings
// included; older code scans the same way, since it cannot hold such strings.
// The tokenizer uses the scanner only to find where an f-string ends; the
// parser walks the parts with a visitor to build JoinedStr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fastenough::pysrc {

inline constexpr size_t kScanFailed = static_cast<size_t>(-1);

struct FStringField {
  size_t open = 0;         // the '{'
  size_t expr_begin = 0;   // the expression: [expr_begin, expr_end)
  size_t expr_end = 0;
  size_t debug_end = 0;    // `{x = }`: end of "x = " (the text printed); 0 without '='
  char conversion = 0;     // 's', 'r', 'a', or 0
  bool has_spec = false;   // a ':' was seen; the spec is [spec_begin, spec_end)
  size_t spec_begin = 0;
  size_t spec_end = 0;
  size_t close = 0;        // the '}'
};

class FStringVisitor {
 public:
  virtual ~FStringVisitor() = default;
  // Literal text [begin, end) of the source, escapes not yet decoded; `{{`
  // and `}}` come as separate one-character chunks holding one brace.
  virtual void Literal(size_t begin, size_t end) = 0;
  virtual void Field(const FStringField& field) = 0;
};

class FStringScanner {
 public:
  // `quote` is the quote character; `triple` for ''' / """; `raw` for rf"".
  FStringScanner(std::string_view src, char quote, bool triple, bool raw)
      : src_(src), quote_(quote), triple_(triple), raw_(raw) {}

  // From the first character after the opening quote(s): returns the offset
  // of the closing quote, or kScanFailed with error() set.
  size_t ScanBody(size_t pos, FStringVisitor* visitor);
  // A format spec [pos, limit) of a field: literal text and nested fields.
  // Returns limit, or kScanFailed.
  size_t ScanSpec(size_t pos, size_t limit, FStringVisitor* visitor);

  const std::string& error() const { return error_; }
  size_t error_offset() const { return error_offset_; }

 private:
  size_t ScanParts(size_t pos, size_t limit, bool spec, FStringVisitor* visitor);
  size_t ScanField(size_t open, FStringVisitor* visitor);
  size_t SkipStringLiteral(size_t pos);
  bool AtClosingQuote(size_t pos) const;
  size_t Fail(size_t at, std::string message);

  std::string_view src_;
  char quote_;
  bool triple_;
  bool raw_;
  int nesting_ = 0;
  std::string error_;
  size_t error_offset_ = 0;
};

// Where a string literal that starts at `pos` (its prefix or opening quote)
// ends: the offset after its closing quote(s), or kScanFailed with `error`
// and `error_offset` set. Handles every prefix, f-strings included.
size_t ScanStringLiteral(std::string_view src, size_t pos, std::string* error,
                         size_t* error_offset);

// The prefix letters of a string literal at `pos` (0..2 of rRbBuUfF), or -1
// when `pos` does not start a string literal.
int StringPrefixLength(std::string_view src, size_t pos);

}  // namespace fastenough::pysrc
