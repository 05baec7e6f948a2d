#include "fastenough/pysrc/code_points.h"

#include <algorithm>
#include <iterator>

namespace fastenough::pysrc {

namespace {

struct CodeRange {
  uint32_t first, last;
};

#include "fastenough/pysrc/identifier_chars.inc"

template <size_t N>
bool InRanges(const CodeRange (&ranges)[N], uint32_t c) {
  auto it = std::upper_bound(std::begin(ranges), std::end(ranges), c,
                             [](uint32_t v, const CodeRange& r) { return v < r.first; });
  return it != std::begin(ranges) && c <= std::prev(it)->last;
}

}  // namespace

// One code point of UTF-8 text (leniently: surrogates encoded as 3 bytes come
// back as themselves; a stray byte as itself).
uint32_t DecodeAt(std::string_view s, size_t* i) {
  const auto b = static_cast<unsigned char>(s[*i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
  if (*i + len > s.size()) len = 1;
  uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3f);
  *i += len;
  return cp;
}

// str.isprintable() for one code point: the assigned non-printable ranges of
// Unicode 14 (Cc, Cf, Zs but space, Zl, Zp, Cs, Co) and U+FFFE/U+FFFF.
bool IsPrintable(uint32_t c) {
  if (c < 0x80) return c >= 0x20 && c != 0x7f;
  static constexpr uint32_t kNot[][2] = {
      {0x80, 0xa0}, {0xad, 0xad}, {0x600, 0x605}, {0x61c, 0x61c}, {0x6dd, 0x6dd},
      {0x70f, 0x70f}, {0x890, 0x891}, {0x8e2, 0x8e2}, {0x1680, 0x1680}, {0x180e, 0x180e},
      {0x2000, 0x200f}, {0x2028, 0x202f}, {0x205f, 0x2064}, {0x2066, 0x206f},
      {0x3000, 0x3000}, {0xd800, 0xf8ff}, {0xfeff, 0xfeff}, {0xfff9, 0xfffb},
      {0xfffe, 0xffff}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x13438},
      {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
      {0xf0000, 0xffffd}, {0x100000, 0x10fffd},
  };
  for (const auto& r : kNot) {
    if (c >= r[0] && c <= r[1]) return false;
  }
  return true;
}

bool IsIdentifierStart(uint32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return InRanges(kIdentifierStart, c);
}

bool IsIdentifierContinue(uint32_t c) {
  if (c < 0x80) return IsIdentifierStart(c) || (c >= '0' && c <= '9');
  return InRanges(kIdentifierContinue, c);
}

}  // namespace fastenough::pysrc
