#include "fastenough/util/units.h"

#include <gtest/gtest.h>

#include <limits>

namespace fastenough::util {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FormatDuration, EachUnitWithItsDecimals) {
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(512), "512 ns");
  EXPECT_EQ(FormatDuration(1000), "1.0 \u00b5s");
  EXPECT_EQ(FormatDuration(500000), "500.0 \u00b5s");
  EXPECT_EQ(FormatDuration(1234567), "1.23 ms");
  EXPECT_EQ(FormatDuration(1e9), "1.00 s");
  EXPECT_EQ(FormatDuration(12.3456e9), "12.35 s");
  EXPECT_EQ(FormatDuration(150e9), "2.5 min");
  EXPECT_EQ(FormatDuration(7200e9), "120.0 min");
}

TEST(FormatDuration, TheUnitIsChosenOnThePrintedValue) {
  EXPECT_EQ(FormatDuration(999.4), "999 ns");
  EXPECT_EQ(FormatDuration(999.5), "1.0 \u00b5s");      // not "1000 ns"
  EXPECT_EQ(FormatDuration(999940), "999.9 \u00b5s");
  EXPECT_EQ(FormatDuration(999950), "1.00 ms");         // not "1000.0 µs"
  EXPECT_EQ(FormatDuration(999994000), "999.99 ms");
  EXPECT_EQ(FormatDuration(999996000), "1.00 s");       // not "1000.00 ms"
  EXPECT_EQ(FormatDuration(59.994e9), "59.99 s");
  EXPECT_EQ(FormatDuration(59.996e9), "1.0 min");       // not "60.00 s"
  EXPECT_EQ(FormatDuration(60e9), "1.0 min");
}

TEST(FormatDuration, SignsAndAbsentValues) {
  EXPECT_EQ(FormatDuration(-1.5e6), "-1.50 ms");
  EXPECT_EQ(FormatDuration(-500), "-500 ns");
  EXPECT_EQ(FormatDuration(-0.3), "0 ns");  // prints as zero: no sign
  EXPECT_EQ(FormatDuration(-0.0), "0 ns");
  EXPECT_EQ(FormatDuration(kNaN), "-");
  EXPECT_EQ(FormatDuration(kInf), "-");
  EXPECT_EQ(FormatDuration(-kInf), "-");
}

TEST(FormatBytes, BinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(1048575), "1.0 MiB");  // 1023.999 KiB: not "1024.0 KiB"
  EXPECT_EQ(FormatBytes(1048576), "1.0 MiB");
  EXPECT_EQ(FormatBytes(80.0 * (1 << 30)), "80.0 GiB");
  EXPECT_EQ(FormatBytes(3.0 * 1099511627776.0), "3.0 TiB");
  EXPECT_EQ(FormatBytes(5000.0 * 1099511627776.0), "5000.0 TiB");  // TiB is the last unit
  EXPECT_EQ(FormatBytes(-1), "-");
  EXPECT_EQ(FormatBytes(kNaN), "-");
  EXPECT_EQ(FormatBytes(kInf), "-");
}

TEST(FormatShare, OneDecimalPercent) {
  EXPECT_EQ(FormatShare(0), "0.0%");
  EXPECT_EQ(FormatShare(-0.0), "0.0%");
  EXPECT_EQ(FormatShare(0.312), "31.2%");
  EXPECT_EQ(FormatShare(0.3125), "31.2%");  // 31.25 is exact: half to even
  EXPECT_EQ(FormatShare(0.0004), "0.0%");
  EXPECT_EQ(FormatShare(1), "100.0%");
  EXPECT_EQ(FormatShare(1.5), "150.0%");
  EXPECT_EQ(FormatShare(-0.1), "-");
  EXPECT_EQ(FormatShare(kNaN), "-");
  EXPECT_EQ(FormatShare(kInf), "-");
}

}  // namespace
}  // namespace fastenough::util
