// Strict UTF-8, as Python's decoder and simdjson judge it (Unicode table 3-7,
// well-formed byte sequences): no overlong forms, no surrogates, nothing above
// U+10FFFF, no truncated sequence. Shared by the report's JSON writer and the
// trace reader (which replace bad bytes with U+FFFD) and lint (which skips a
// file that is not UTF-8, naming the offset).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace fastenough {

// Length (1 to 4) of the well-formed UTF-8 sequence that starts at s[i], or 0
// when the bytes there do not form one. Inline: the trace reader calls it per
// non-ASCII byte of a repaired object.
inline size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // no overlong forms
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

// The byte offset where strict decoding fails (the offset Python's
// UnicodeDecodeError.start reports); nullopt when all of `s` is valid.
std::optional<size_t> FirstInvalidUtf8(std::string_view s);

}  // namespace fastenough
