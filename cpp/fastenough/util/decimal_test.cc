#include "fastenough/util/decimal.h"

#include <gtest/gtest.h>

namespace fastenough {
namespace {

int64_t Ns(std::string_view s) {
  int64_t v = -12345;
  EXPECT_EQ(ParseMicrosToNanos(s, &v), DecimalResult::kOk) << s;
  return v;
}

TEST(ReaderDecimal, HandValues) {
  EXPECT_EQ(Ns("0.5"), 500);
  EXPECT_EQ(Ns("1712195495505582.988"), 1712195495505582988);
  EXPECT_EQ(Ns("4.928"), 4928);
  EXPECT_EQ(Ns("1665536373729077"), 1665536373729077000);
  EXPECT_EQ(Ns("1e3"), 1000000);
  EXPECT_EQ(Ns("1.5e3"), 1500000);
  EXPECT_EQ(Ns("1.5E-3"), 2);  // 1.5 ns rounds half away from zero
  EXPECT_EQ(Ns("-3.2"), -3200);
  EXPECT_EQ(Ns("0"), 0);
  EXPECT_EQ(Ns("-0.0"), 0);
  EXPECT_EQ(Ns(" 12 "), 12000);
  EXPECT_EQ(Ns("+7"), 7000);
  EXPECT_EQ(Ns(".25"), 250);
  EXPECT_EQ(Ns("3."), 3000);
  // Sub-nanosecond digits: first dropped digit decides.
  EXPECT_EQ(Ns("0.0004999"), 0);
  EXPECT_EQ(Ns("0.0005"), 1);
  EXPECT_EQ(Ns("-0.0005"), -1);
  EXPECT_EQ(Ns("0.000005"), 0);
  EXPECT_EQ(Ns("1698129183417650.140"), 1698129183417650140);
  // 19 significant digits: exact, where a double would be off.
  EXPECT_EQ(Ns("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(Ns("-9223372036854775.808"), INT64_MIN);
  // Many leading zeros and long fractions.
  EXPECT_EQ(Ns("0000000000000000000000000000000000000000001.000"), 1000);
  EXPECT_EQ(Ns("1.000000000000000000000000000000000000000000001"), 1000);
}

TEST(ReaderDecimal, Scale) {
  int64_t v = 0;
  EXPECT_EQ(ParseScaledDecimal("10159970886766084423", 0, &v), DecimalResult::kOverflow);
  EXPECT_EQ(ParseScaledDecimal("9223372036854775807", 0, &v), DecimalResult::kOk);
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_EQ(ParseScaledDecimal("42", 0, &v), DecimalResult::kOk);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(ParseScaledDecimal("2.0", 0, &v), DecimalResult::kOk);
  EXPECT_EQ(v, 2);
  EXPECT_EQ(ParseMicrosToNanos("9223372036854776", &v), DecimalResult::kOverflow);
  EXPECT_EQ(ParseMicrosToNanos("1e400", &v), DecimalResult::kOverflow);
  EXPECT_EQ(ParseMicrosToNanos("1e-400", &v), DecimalResult::kOk);
  EXPECT_EQ(v, 0);
}

TEST(ReaderDecimal, NotNumbers) {
  int64_t v = 0;
  EXPECT_EQ(ParseMicrosToNanos("", &v), DecimalResult::kEmpty);
  EXPECT_EQ(ParseMicrosToNanos("   ", &v), DecimalResult::kEmpty);
  EXPECT_EQ(ParseMicrosToNanos("inf", &v), DecimalResult::kNotFinite);
  EXPECT_EQ(ParseMicrosToNanos("-Infinity", &v), DecimalResult::kNotFinite);
  EXPECT_EQ(ParseMicrosToNanos("NaN", &v), DecimalResult::kNotFinite);
  EXPECT_EQ(ParseMicrosToNanos("N/A", &v), DecimalResult::kNotFinite);
  EXPECT_EQ(ParseMicrosToNanos("abc", &v), DecimalResult::kGarbage);
  EXPECT_EQ(ParseMicrosToNanos("12abc", &v), DecimalResult::kGarbage);
  EXPECT_EQ(ParseMicrosToNanos("1.2.3", &v), DecimalResult::kGarbage);
  EXPECT_EQ(ParseMicrosToNanos("1e", &v), DecimalResult::kGarbage);
  EXPECT_EQ(ParseMicrosToNanos("-", &v), DecimalResult::kGarbage);
  EXPECT_EQ(ParseMicrosToNanos(".", &v), DecimalResult::kGarbage);
  EXPECT_EQ(ParseMicrosToNanos("0x10", &v), DecimalResult::kGarbage);
}

}  // namespace
}  // namespace fastenough
