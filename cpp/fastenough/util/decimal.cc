#include "fastenough/util/decimal.h"

#include <cctype>

namespace fastenough {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

bool IsNotFiniteWord(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  for (std::string_view w : {"inf", "infinity", "nan", "n/a", "na", "null", "none", "undefined"}) {
    if (EqualsIgnoreCase(s, w)) return true;
  }
  return false;
}

}  // namespace

namespace {

// The common shapes, "1712195495505582.988", "4.928", "12": no sign or
// exponent, at most scale_pow10 fraction digits and at most 19 digits after
// scaling (< 10^19 fits uint64). Returns false to let the general parser decide.
bool FastPath(std::string_view s, int scale_pow10, int64_t* out) {
  if (scale_pow10 < 0 || scale_pow10 > 3) return false;
  size_t i = 0;
  const size_t n = s.size();
  uint64_t v = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    ++i;
  }
  if (i == 0 || i + static_cast<size_t>(scale_pow10) > 19) return false;
  int frac = 0;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
      if (frac == scale_pow10) return false;
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      ++frac;
      ++i;
    }
  }
  if (i != n) return false;
  static constexpr uint64_t kPow10[] = {1, 10, 100, 1000};
  v *= kPow10[scale_pow10 - frac];
  if (v > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

}  // namespace

DecimalResult ParseScaledDecimal(std::string_view text, int scale_pow10, int64_t* out) {
  if (FastPath(text, scale_pow10, out)) return DecimalResult::kOk;
  size_t b = 0, e = text.size();
  while (b < e && IsSpace(text[b])) ++b;
  while (e > b && IsSpace(text[e - 1])) --e;
  std::string_view s = text.substr(b, e - b);
  if (s.empty()) return DecimalResult::kEmpty;

  size_t i = 0;
  bool negative = false;
  if (s[i] == '-' || s[i] == '+') {
    negative = s[i] == '-';
    ++i;
  }
  // Significant digits go into a 128-bit mantissa; digits past 36 only move
  // the decimal exponent (they are far below a nanosecond for any trace).
  unsigned __int128 mant = 0;
  int digits_kept = 0;
  int exp10 = 0;
  bool any_digit = false;
  bool last_dropped_round_up = false;  // first dropped digit >= 5
  bool dropped_any = false;
  auto take_digit = [&](int d, bool after_point) {
    any_digit = true;
    if (digits_kept < 36) {
      if (mant != 0 || d != 0) ++digits_kept;
      mant = mant * 10 + static_cast<unsigned>(d);
      if (after_point) --exp10;
    } else {
      if (!dropped_any) last_dropped_round_up = d >= 5;
      dropped_any = true;
      if (!after_point) ++exp10;
    }
  };
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') take_digit(s[i++] - '0', false);
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') take_digit(s[i++] - '0', true);
  }
  if (!any_digit) {
    return IsNotFiniteWord(s) ? DecimalResult::kNotFinite : DecimalResult::kGarbage;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return DecimalResult::kGarbage;
    int ev = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (ev < 100000) ev = ev * 10 + (s[i] - '0');
      ++i;
    }
    exp10 += eneg ? -ev : ev;
  }
  if (i != s.size()) return DecimalResult::kGarbage;

  exp10 += scale_pow10;
  constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(INT64_MAX) + 1;
  if (mant == 0) {
    *out = 0;
    return DecimalResult::kOk;
  }
  if (exp10 >= 0) {
    for (int k = 0; k < exp10; ++k) {
      mant *= 10;
      if (mant > kLimit) return DecimalResult::kOverflow;
    }
  } else {
    bool round_up = false;
    // Half away from zero: only the first dropped digit decides.
    for (int k = 0; k < -exp10; ++k) {
      if (mant == 0) {
        round_up = false;
        break;
      }
      round_up = (mant % 10) >= 5;
      mant /= 10;
    }
    if (round_up) ++mant;
    last_dropped_round_up = false;
  }
  if (last_dropped_round_up && exp10 >= 0) {
    // Only reachable with > 36 significant integer digits: overflow anyway.
    return DecimalResult::kOverflow;
  }
  if (mant > kLimit || (mant == kLimit && !negative)) return DecimalResult::kOverflow;
  if (negative) {
    *out = mant == kLimit ? INT64_MIN : -static_cast<int64_t>(mant);
  } else {
    *out = static_cast<int64_t>(mant);
  }
  return DecimalResult::kOk;
}

}  // namespace fastenough
