#include "fastenough/stats/robust_summary.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace fastenough::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(SummarizeRobust, NoValuesIsAllNaN) {
  const auto s = SummarizeRobust({});
  EXPECT_EQ(s.count, 0);
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.iqr));
  EXPECT_TRUE(std::isnan(s.mad));
  EXPECT_TRUE(std::isnan(s.min));
  // Only NaN inputs are no values either.
  EXPECT_EQ(SummarizeRobust({kNaN, kNaN}).count, 0);
}

TEST(SummarizeRobust, OneValueHasNoSpread) {
  const auto s = SummarizeRobust({4.0});
  EXPECT_EQ(s.count, 1);
  EXPECT_DOUBLE_EQ(s.median, 4.0);
  EXPECT_DOUBLE_EQ(s.q1, 4.0);
  EXPECT_DOUBLE_EQ(s.q3, 4.0);
  EXPECT_DOUBLE_EQ(s.iqr, 0.0);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
  EXPECT_DOUBLE_EQ(s.min, 4.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
}

TEST(SummarizeRobust, TwoValuesInterpolate) {
  // x0 = 2, x1 = 6: median 4, q1 = 2 + 4/4 = 3, q3 = 2 + 3*4/4 = 5, iqr 2;
  // deviations {2, 2}: mad 2.
  const auto s = SummarizeRobust({6.0, 2.0});
  EXPECT_EQ(s.count, 2);
  EXPECT_DOUBLE_EQ(s.median, 4.0);
  EXPECT_DOUBLE_EQ(s.q1, 3.0);
  EXPECT_DOUBLE_EQ(s.q3, 5.0);
  EXPECT_DOUBLE_EQ(s.iqr, 2.0);
  EXPECT_DOUBLE_EQ(s.mad, 2.0);
}

TEST(SummarizeRobust, FiveRoundsByHand) {
  // Sorted {1, 2, 3, 4, 100}: h(q1) = 4 * 0.25 = 1 -> 2; h(q3) = 3 -> 4;
  // median 3; deviations {2, 1, 0, 1, 97} -> sorted {0, 1, 1, 2, 97}: mad 1.
  // The outlier moves neither the median nor the IQR.
  const auto s = SummarizeRobust({3.0, 100.0, 1.0, 4.0, 2.0, kNaN});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.q1, 2.0);
  EXPECT_DOUBLE_EQ(s.q3, 4.0);
  EXPECT_DOUBLE_EQ(s.iqr, 2.0);
  EXPECT_DOUBLE_EQ(s.mad, 1.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
}

TEST(RoundsAgree, RelativeToTheSmaller) {
  // 100 vs 104: |4| <= 0.05 * 100 = 5.
  EXPECT_TRUE(RoundsAgree(100.0, 104.0, 0.05));
  EXPECT_TRUE(RoundsAgree(104.0, 100.0, 0.05));
  // 100 vs 106: 6 > 5.
  EXPECT_FALSE(RoundsAgree(100.0, 106.0, 0.05));
  // Exactly on the boundary agrees: 100 vs 105.
  EXPECT_TRUE(RoundsAgree(100.0, 105.0, 0.05));
  EXPECT_TRUE(RoundsAgree(0.0, 0.0, 0.05));
  EXPECT_FALSE(RoundsAgree(0.0, 1.0, 0.05));
  EXPECT_FALSE(RoundsAgree(kNaN, 1.0, 0.05));
  EXPECT_FALSE(RoundsAgree(1.0, 1.0, -0.1));
}

}  // namespace
}  // namespace fastenough::stats
