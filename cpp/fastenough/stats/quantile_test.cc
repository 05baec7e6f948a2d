#include "fastenough/stats/quantile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace fastenough::stats {
namespace {

using I = std::vector<int64_t>;
using D = std::vector<double>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Quantile, EmptyIsNaN) {
  EXPECT_TRUE(std::isnan(Quantile(I{}, 0.5)));
  EXPECT_TRUE(std::isnan(Quantile(D{}, 0.5)));
  EXPECT_TRUE(std::isnan(Median(I{})));
  EXPECT_TRUE(std::isnan(Median(D{})));
  EXPECT_TRUE(std::isnan(QuantileSorted(std::span<const int64_t>{}, 0.0)));
  // Only NaN values: none left, so absent too.
  EXPECT_TRUE(std::isnan(Median(D{kNaN, kNaN})));
}

TEST(Quantile, OneValueIsEveryQuantile) {
  for (double p : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    EXPECT_EQ(Quantile(I{42}, p), 42);
    EXPECT_EQ(Quantile(D{7.5}, p), 7.5);
  }
}

TEST(Quantile, TwoValuesInterpolate) {
  // x0 + p * (x1 - x0); unsorted on purpose.
  EXPECT_DOUBLE_EQ(Median(I{200, 100}), 150);
  EXPECT_DOUBLE_EQ(Quantile(I{200, 100}, 0.1), 110);
  EXPECT_DOUBLE_EQ(Quantile(I{200, 100}, 0.9), 190);
  EXPECT_DOUBLE_EQ(Median(D{4.0, 2.0}), 3.0);
}

TEST(Quantile, OddAndEvenCounts) {
  // Odd n: the median is the middle value (h = 2).
  EXPECT_DOUBLE_EQ(Median(D{5.0, 1.0, 3.0, 9.0, 7.0}), 5.0);
  // Even n: the mean of the two middle values (h = 1.5), not the upper one.
  EXPECT_DOUBLE_EQ(Median(I{1, 2, 3, 10}), 2.5);
  // numpy.percentile([10, 20, 65, 100], [50, 90]) == [42.5, 89.5]:
  // h = 3 * 0.9 = 2.7 -> 65 + 0.7 * 35 = 89.5.
  EXPECT_DOUBLE_EQ(Quantile(I{100, 10, 65, 20}, 0.5), 42.5);
  EXPECT_DOUBLE_EQ(Quantile(I{100, 10, 65, 20}, 0.9), 89.5);
  // Five values: h = 4 * 0.1 = 0.4 -> 1 + 0.4 * (2 - 1).
  EXPECT_DOUBLE_EQ(Quantile(I{1, 2, 3, 4, 5}, 0.1), 1.4);
  // Quartiles of four: h = 0.75 -> 10 + 0.75 * 10; h = 2.25 -> 30 + 0.25 * 10.
  EXPECT_DOUBLE_EQ(QuantileSorted(D{10, 20, 30, 40}, 0.25), 17.5);
  EXPECT_DOUBLE_EQ(QuantileSorted(D{10, 20, 30, 40}, 0.75), 32.5);
}

TEST(Quantile, Ties) {
  EXPECT_DOUBLE_EQ(Median(I{2, 9, 2, 1, 2}), 2);
  // sorted 100, 100, 100, 200: h = 2.7 -> 100 + 0.7 * 100.
  EXPECT_DOUBLE_EQ(Quantile(I{100, 200, 100, 100}, 0.9), 170);
  EXPECT_DOUBLE_EQ(Quantile(I{100, 200, 100, 100}, 0.5), 100);
  EXPECT_DOUBLE_EQ(Quantile(D{3, 3, 3, 3}, 0.37), 3);
}

TEST(Quantile, EndsAndClamping) {
  EXPECT_DOUBLE_EQ(Quantile(I{100, 10, 65, 20}, 0.0), 10);
  EXPECT_DOUBLE_EQ(Quantile(I{100, 10, 65, 20}, 1.0), 100);
  // p outside [0, 1] is clamped to the extremes; a NaN p has no answer.
  EXPECT_DOUBLE_EQ(Quantile(D{1.0, 2.0}, 1.5), 2.0);
  EXPECT_DOUBLE_EQ(Quantile(D{1.0, 2.0}, -1.0), 1.0);
  EXPECT_TRUE(std::isnan(Quantile(D{1.0, 2.0}, kNaN)));
}

TEST(Quantile, NaNValuesAreDropped) {
  // {NaN, 40, 10, NaN, 30, 20} is {10, 20, 30, 40}: h = 2.7 -> 37.
  EXPECT_DOUBLE_EQ(Quantile(D{kNaN, 40.0, 10.0, kNaN, 30.0, 20.0}, 0.9), 37.0);
  EXPECT_DOUBLE_EQ(Median(D{kNaN, 1.0}), 1.0);
}

TEST(Quantile, LargeNanosecondValuesKeepPrecision) {
  // Relative-clock nanoseconds around 1e12 still interpolate exactly.
  EXPECT_DOUBLE_EQ(Median(I{1000000000100, 1000000000000}), 1000000000050.0);
  EXPECT_DOUBLE_EQ(Quantile(I{1000000000100, 1000000000000}, 0.9), 1000000000090.0);
}

TEST(QuantileNs, RoundsToWholeNanosecondsAndZeroForNone) {
  EXPECT_EQ(QuantileNs({}, 0.5), 0);
  EXPECT_EQ(QuantileNs({7}, 0.9), 7);
  EXPECT_EQ(QuantileNs({10, 20}, 0.5), 15);
  EXPECT_EQ(QuantileNs({100, 200, 100, 100}, 0.9), 170);
  // 1, 2: the median 1.5 rounds half away from zero to 2; 0.25 -> 1.25 -> 1.
  EXPECT_EQ(QuantileNs({1, 2}, 0.5), 2);
  EXPECT_EQ(QuantileNs({1, 2}, 0.25), 1);
  EXPECT_EQ(QuantileNs({1, 2}, kNaN), 0);
}

}  // namespace
}  // namespace fastenough::stats
