// Decimal text -> scaled int64, without a double in between. Trace
// timestamps are decimal microseconds ("1712195495505582.988", "4.928",
// "1665536373729077", "1.5e3"); a double holds only ~15.9 significant digits,
// so an epoch-µs value with 3 decimals (19 digits) would lose nanoseconds.
#pragma once

#include <cstdint>
#include <string_view>

namespace fastenough {

enum class DecimalResult : uint8_t {
  kOk,
  kEmpty,      // "" or only spaces
  kNotFinite,  // "inf", "-Infinity", "nan", "N/A", "null", "none"
  kGarbage,    // anything else that is not a decimal number
  kOverflow,   // a number, but the scaled value does not fit int64
};

// Parses `text` (optionally signed, optional fraction and exponent, leading
// and trailing spaces allowed) and stores text * 10^scale_pow10, rounded half
// away from zero to an integer, in *out. scale_pow10 = 3 turns µs into ns.
DecimalResult ParseScaledDecimal(std::string_view text, int scale_pow10, int64_t* out);

// Microsecond text -> nanoseconds.
inline DecimalResult ParseMicrosToNanos(std::string_view text, int64_t* out) {
  return ParseScaledDecimal(text, 3, out);
}

}  // namespace fastenough
