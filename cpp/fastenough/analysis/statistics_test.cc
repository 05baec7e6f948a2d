#include "fastenough/analysis/statistics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fastenough::analysis {
namespace {

TEST(StatisticsTest, EmptyIsNaN) {
  std::vector<int64_t> v;
  EXPECT_TRUE(std::isnan(Percentile(v, 0.5)));
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

TEST(StatisticsTest, MatchesNumpyLinear) {
  // numpy.percentile([10, 20, 65, 100], [50, 90]) == [42.5, 89.5]
  std::vector<int64_t> v{100, 10, 65, 20};
  EXPECT_DOUBLE_EQ(Percentile(v, 0.5), 42.5);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.9), 89.5);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.0), 10);
  EXPECT_DOUBLE_EQ(Percentile(v, 1.0), 100);
  // Five values: h = 4 * 0.1 = 0.4 -> 1 + 0.4 * (2 - 1)
  std::vector<int64_t> w{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(Percentile(w, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(Percentile(w, 0.5), 3);
}

TEST(StatisticsTest, LargeNanosecondValuesKeepPrecision) {
  // Relative-clock nanoseconds around 1e12 still interpolate exactly.
  std::vector<int64_t> v{1000000000100, 1000000000000};
  EXPECT_DOUBLE_EQ(Percentile(v, 0.5), 1000000000050.0);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.9), 1000000000090.0);
}

TEST(StatisticsTest, MedianOfDoublesEdgeCases) {
  std::vector<double> none;
  EXPECT_TRUE(std::isnan(Percentile(none, 0.5)));
  std::vector<double> one{3.0};
  EXPECT_DOUBLE_EQ(Percentile(one, 0.5), 3.0);
  std::vector<double> two{4.0, 2.0};
  EXPECT_DOUBLE_EQ(Percentile(two, 0.5), 3.0);  // mean of the two
  std::vector<double> odd{5.0, 1.0, 3.0};
  EXPECT_DOUBLE_EQ(Percentile(odd, 0.5), 3.0);
}

TEST(StatisticsTest, DoublesInterpolateLinearly) {
  // h = (4 - 1) * 0.25 = 0.75 -> 10 + 0.75 * (20 - 10) = 17.5
  EXPECT_DOUBLE_EQ(PercentileSorted(std::vector<double>{10, 20, 30, 40}, 0.25), 17.5);
  EXPECT_DOUBLE_EQ(PercentileSorted(std::vector<double>{10, 20, 30, 40}, 1.0), 40.0);
  EXPECT_DOUBLE_EQ(PercentileSorted(std::vector<double>{10, 20, 30, 40}, 0.0), 10.0);
}

}  // namespace
}  // namespace fastenough::analysis
