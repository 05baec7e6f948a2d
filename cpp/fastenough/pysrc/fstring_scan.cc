#include "fastenough/pysrc/fstring_scan.h"

#include <utility>

namespace fastenough::pysrc {
namespace {

constexpr int kMaxFStringNesting = 150;

bool IsFStringNameByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c >= 0x80;
}

bool IsQuote(char c) { return c == '\'' || c == '"'; }

size_t ScanLiteral(std::string_view src, size_t pos, int nesting, std::string* error,
                   size_t* error_offset);

}  // namespace

int StringPrefixLength(std::string_view src, size_t pos) {
  size_t n = 0;
  bool r = false, b = false, f = false, u = false;
  while (pos + n < src.size() && n < 3) {
    char c = src[pos + n];
    if (IsQuote(c)) break;
    switch (c) {
      case 'r': case 'R': if (r) return -1; r = true; break;
      case 'b': case 'B': if (b) return -1; b = true; break;
      case 'f': case 'F': if (f) return -1; f = true; break;
      case 'u': case 'U': if (u) return -1; u = true; break;
      default: return -1;
    }
    ++n;
  }
  if (pos + n >= src.size() || !IsQuote(src[pos + n]) || n > 2) return -1;
  if (u && n > 1) return -1;  // u combines with nothing
  if (b && f) return -1;
  return static_cast<int>(n);
}

size_t ScanStringLiteral(std::string_view src, size_t pos, std::string* error,
                         size_t* error_offset) {
  return ScanLiteral(src, pos, 0, error, error_offset);
}

namespace {

// A plain (not f-) string's body from after the opening quote(s): the offset
// after the closing quote(s). A backslash always hides the next character from
// the quote search, raw or not (r"\"" is one string).
size_t ScanPlainBody(std::string_view src, size_t pos, char quote, bool triple,
                     std::string* error, size_t* error_offset) {
  const size_t n = src.size();
  while (pos < n) {
    char c = src[pos];
    if (c == '\\') {
      pos += (pos + 2 < n && src[pos + 1] == '\r' && src[pos + 2] == '\n') ? 3 : 2;
      continue;
    }
    if (c == quote) {
      if (!triple) return pos + 1;
      if (pos + 2 < n && src[pos + 1] == quote && src[pos + 2] == quote) return pos + 3;
    } else if (!triple && (c == '\n' || c == '\r')) {
      *error = "unterminated string literal";
      *error_offset = pos;
      return kScanFailed;
    }
    ++pos;
  }
  *error = triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
  *error_offset = n;
  return kScanFailed;
}

size_t ScanLiteral(std::string_view src, size_t pos, int nesting, std::string* error,
                   size_t* error_offset) {
  int plen = StringPrefixLength(src, pos);
  if (plen < 0) {
    *error = "invalid string literal";
    *error_offset = pos;
    return kScanFailed;
  }
  bool f = false, r = false;
  for (int i = 0; i < plen; ++i) {
    char c = src[pos + i];
    f |= (c == 'f' || c == 'F');
    r |= (c == 'r' || c == 'R');
  }
  size_t q = pos + plen;
  char quote = src[q];
  bool triple = q + 2 < src.size() && src[q + 1] == quote && src[q + 2] == quote;
  size_t body = q + (triple ? 3 : 1);
  if (!f) return ScanPlainBody(src, body, quote, triple, error, error_offset);
  if (nesting > kMaxFStringNesting) {
    *error = "f-string: expressions nested too deeply";
    *error_offset = pos;
    return kScanFailed;
  }
  FStringScanner inner(src, quote, triple, r);
  size_t close = inner.ScanBody(body, nullptr);
  if (close == kScanFailed) {
    *error = inner.error();
    *error_offset = inner.error_offset();
    return kScanFailed;
  }
  return close + (triple ? 3 : 1);
}

}  // namespace

bool FStringScanner::AtClosingQuote(size_t pos) const {
  if (src_[pos] != quote_) return false;
  if (!triple_) return true;
  return pos + 2 < src_.size() && src_[pos + 1] == quote_ && src_[pos + 2] == quote_;
}

size_t FStringScanner::Fail(size_t at, std::string message) {
  if (error_.empty()) {
    error_ = std::move(message);
    error_offset_ = at;
  }
  return kScanFailed;
}

size_t FStringScanner::ScanBody(size_t pos, FStringVisitor* visitor) {
  return ScanParts(pos, src_.size(), false, visitor);
}

size_t FStringScanner::ScanSpec(size_t pos, size_t limit, FStringVisitor* visitor) {
  return ScanParts(pos, limit, true, visitor);
}

// Literal text and fields up to the closing quote (spec = false) or, in a
// format spec, up to `limit` or the '}' that closes the field.
size_t FStringScanner::ScanParts(size_t pos, size_t limit, bool spec, FStringVisitor* visitor) {
  size_t lit = pos;
  auto flush = [&](size_t end) {
    if (visitor != nullptr && end > lit) visitor->Literal(lit, end);
  };
  while (true) {
    if (pos >= limit) {
      if (spec) {
        flush(limit);
        return limit;
      }
      return Fail(src_.size(), triple_ ? "unterminated triple-quoted string literal"
                                       : "unterminated string literal");
    }
    char c = src_[pos];
    if (AtClosingQuote(pos)) {
      if (spec) return Fail(pos, "f-string: expecting '}'");
      flush(pos);
      return pos;
    }
    if (!triple_ && (c == '\n' || c == '\r')) {
      return Fail(pos, spec ? "f-string: expecting '}'" : "unterminated string literal");
    }
    if (c == '\\') {
      // Raw or not, a backslash hides the next character from the search for
      // the closing quote; only braces keep their meaning after it.
      if (!raw_ && pos + 2 < limit && src_[pos + 1] == 'N' && src_[pos + 2] == '{') {
        size_t close = src_.find('}', pos + 3);
        if (close == std::string_view::npos || close >= limit) {
          return Fail(pos, "malformed \\N character escape");
        }
        pos = close + 1;
        continue;
      }
      if (pos + 1 < limit && (src_[pos + 1] == '{' || src_[pos + 1] == '}')) {
        ++pos;  // "\{": the brace still opens a field
        continue;
      }
      pos += (pos + 2 < limit && src_[pos + 1] == '\r' && src_[pos + 2] == '\n') ? 3 : 2;
      continue;
    }
    // In a format spec braces are never doubled escapes: '{' opens a nested
    // field and '}' closes the field (f"{v:{w:0}}" ends with two closers).
    if (c == '{') {
      if (!spec && pos + 1 < limit && src_[pos + 1] == '{') {
        flush(pos + 1);  // "{{" is one literal brace
        pos += 2;
        lit = pos;
        continue;
      }
      flush(pos);
      pos = ScanField(pos, visitor);
      if (pos == kScanFailed) return kScanFailed;
      lit = pos;
      continue;
    }
    if (c == '}') {
      if (!spec && pos + 1 < limit && src_[pos + 1] == '}') {
        flush(pos + 1);
        pos += 2;
        lit = pos;
        continue;
      }
      if (spec) {
        flush(pos);
        return pos;
      }
      return Fail(pos, "f-string: single '}' is not allowed");
    }
    ++pos;
  }
}

size_t FStringScanner::SkipStringLiteral(size_t pos) {
  std::string err;
  size_t err_at = 0;
  size_t end = ScanLiteral(src_, pos, nesting_ + 1, &err, &err_at);
  if (end == kScanFailed) return Fail(err_at, err);
  return end;
}

// From the '{' of a replacement field to after its '}'.
size_t FStringScanner::ScanField(size_t open, FStringVisitor* visitor) {
  if (++nesting_ > kMaxFStringNesting) return Fail(open, "f-string: expressions nested too deeply");
  FStringField field;
  field.open = open;
  field.expr_begin = open + 1;
  const size_t n = src_.size();
  size_t pos = open + 1;
  int depth = 0;
  bool done = false;
  while (!done) {
    if (pos >= n) return Fail(n, "f-string: expecting '}'");
    unsigned char c = static_cast<unsigned char>(src_[pos]);
    if (IsQuote(static_cast<char>(c))) {
      pos = SkipStringLiteral(pos);
      if (pos == kScanFailed) return kScanFailed;
      continue;
    }
    if (IsFStringNameByte(c)) {
      size_t start = pos;
      while (pos < n && IsFStringNameByte(static_cast<unsigned char>(src_[pos]))) ++pos;
      if (pos - start <= 2 && pos < n && IsQuote(src_[pos]) &&
          StringPrefixLength(src_, start) == static_cast<int>(pos - start)) {
        pos = SkipStringLiteral(start);
        if (pos == kScanFailed) return kScanFailed;
      }
      continue;
    }
    switch (c) {
      case '(': case '[': case '{':
        ++depth;
        ++pos;
        continue;
      case ')': case ']':
        if (--depth < 0) return Fail(pos, "f-string: unmatched ')'");
        ++pos;
        continue;
      case '}':
        if (depth > 0) {
          --depth;
          ++pos;
          continue;
        }
        field.expr_end = pos;
        done = true;
        continue;
      case '#': {
        // A comment (allowed in multi-line fields since 3.12) runs to the line end.
        while (pos < n && src_[pos] != '\n' && src_[pos] != '\r') ++pos;
        continue;
      }
      case '\\':
        pos += 2;
        continue;
      default: break;
    }
    if (depth == 0) {
      char next = pos + 1 < n ? src_[pos + 1] : '\0';
      if (c == '!' && next != '=') {
        field.expr_end = pos;
        done = true;
        continue;
      }
      if (c == ':') {
        field.expr_end = pos;
        done = true;
        continue;
      }
      if ((c == '=' || c == '!' || c == '<' || c == '>') && next == '=') {
        pos += 2;
        continue;
      }
      if (c == '=') {
        field.expr_end = pos;
        ++pos;
        while (pos < n && (src_[pos] == ' ' || src_[pos] == '\t' || src_[pos] == '\n' ||
                           src_[pos] == '\r' || src_[pos] == '\f')) {
          ++pos;
        }
        field.debug_end = pos;
        if (pos >= n || (src_[pos] != '!' && src_[pos] != ':' && src_[pos] != '}')) {
          return Fail(pos, "f-string: expecting '!', ':' or '}'");
        }
        done = true;
        continue;
      }
    }
    ++pos;
  }
  if (field.debug_end == 0) pos = field.expr_end;
  if (pos < n && src_[pos] == '!') {
    char conv = pos + 1 < n ? src_[pos + 1] : '\0';
    if (conv != 's' && conv != 'r' && conv != 'a') {
      return Fail(pos, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
    }
    field.conversion = conv;
    pos += 2;
  }
  if (pos < n && src_[pos] == ':') {
    field.has_spec = true;
    field.spec_begin = pos + 1;
    size_t end = ScanParts(pos + 1, n, true, nullptr);
    if (end == kScanFailed) return kScanFailed;
    field.spec_end = end;
    pos = end;
  }
  if (pos >= n || src_[pos] != '}') return Fail(pos, "f-string: expecting '}'");
  field.close = pos;
  --nesting_;
  if (visitor != nullptr) visitor->Field(field);
  return pos + 1;
}

}  // namespace fastenough::pysrc
