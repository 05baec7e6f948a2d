#include "fastenough/analysis/statistics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fastenough::analysis {
namespace {

TEST(StatisticsTest, EmptyIsNaN) {
  std::vector<int64_t> v;
  Distribution d = Summarize(v);
  EXPECT_EQ(d.count, 0);
  EXPECT_TRUE(std::isnan(d.median));
  EXPECT_TRUE(std::isnan(d.p10));
  EXPECT_TRUE(std::isnan(d.p90));
  EXPECT_TRUE(std::isnan(d.mean));
}

TEST(StatisticsTest, OneValueIsEveryPercentile) {
  std::vector<int64_t> v{42};
  Distribution d = Summarize(v);
  EXPECT_EQ(d.median, 42);
  EXPECT_EQ(d.p10, 42);
  EXPECT_EQ(d.p90, 42);
  EXPECT_EQ(d.min, 42);
  EXPECT_EQ(d.max, 42);
}

TEST(StatisticsTest, TwoValuesInterpolate) {
  std::vector<int64_t> v{200, 100};  // unsorted on purpose
  Distribution d = Summarize(v);
  EXPECT_DOUBLE_EQ(d.median, 150);  // 100 + 0.5 * 100
  EXPECT_DOUBLE_EQ(d.p10, 110);     // 100 + 0.1 * 100
  EXPECT_DOUBLE_EQ(d.p90, 190);
  EXPECT_DOUBLE_EQ(d.mean, 150);
}

TEST(StatisticsTest, PercentilesAreTheProjectQuantile) {
  // numpy.percentile([10, 20, 65, 100], [10, 50, 90]) == [13, 42.5, 89.5]
  std::vector<int64_t> v{100, 10, 65, 20};
  Distribution d = Summarize(v);
  EXPECT_DOUBLE_EQ(d.p10, 13);
  EXPECT_DOUBLE_EQ(d.median, 42.5);
  EXPECT_DOUBLE_EQ(d.p90, 89.5);
  EXPECT_EQ(d.min, 10);
  EXPECT_EQ(d.max, 100);
}

}  // namespace
}  // namespace fastenough::analysis
