#include "fastenough/stats/paired_bootstrap.h"

#include <cmath>

#include <gtest/gtest.h>

namespace fastenough::stats {
namespace {

TEST(PairedRatioOfMedians, EmptyAndMismatched) {
  EXPECT_TRUE(std::isnan(PairedRatioOfMedians({}, {}).ratio));
  const auto r = PairedRatioOfMedians({1.0, 2.0}, {1.0});
  EXPECT_EQ(r.pairs, 0);
  EXPECT_TRUE(std::isnan(r.ratio));
}

TEST(PairedRatioOfMedians, OnePairHasNoInterval) {
  const auto r = PairedRatioOfMedians({2.0}, {3.0});
  EXPECT_EQ(r.pairs, 1);
  EXPECT_DOUBLE_EQ(r.ratio, 1.5);
  EXPECT_TRUE(std::isnan(r.low));
  EXPECT_TRUE(std::isnan(r.high));
}

TEST(PairedRatioOfMedians, TwoPairsBoundedByResampleRatios) {
  // Resamples of pairs {(1,2),(2,6)}: {p0,p0}: 2/1 = 2, {p1,p1}: 6/2 = 3,
  // mixed: median(1,2)=1.5, median(2,6)=4 -> 4/1.5 = 2.667. Point: 4/1.5.
  const auto r = PairedRatioOfMedians({1.0, 2.0}, {2.0, 6.0}, 7, 2000);
  EXPECT_DOUBLE_EQ(r.ratio, 4.0 / 1.5);
  EXPECT_DOUBLE_EQ(r.low, 2.0);   // 2.5% quantile: the all-p0 resamples (~25%)
  EXPECT_DOUBLE_EQ(r.high, 3.0);  // 97.5%: the all-p1 resamples
  EXPECT_EQ(r.resamples, 2000);
}

TEST(PairedRatioOfMedians, ConstantRatioGivesPointInterval) {
  const auto r = PairedRatioOfMedians({1, 2, 3, 4}, {2, 4, 6, 8}, 1, 500);
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_DOUBLE_EQ(r.low, 2.0);
  EXPECT_DOUBLE_EQ(r.high, 2.0);
}

TEST(PairedRatioOfMedians, SeededAndReproducible) {
  const std::vector<double> a{10, 11, 9, 10.5, 10.2, 9.8};
  const std::vector<double> b{12, 12.5, 11, 13, 12.1, 11.7};
  const auto r1 = PairedRatioOfMedians(a, b, 42, 1000);
  const auto r2 = PairedRatioOfMedians(a, b, 42, 1000);
  EXPECT_EQ(r1.low, r2.low);
  EXPECT_EQ(r1.high, r2.high);
  EXPECT_LT(r1.low, r1.ratio);
  EXPECT_GT(r1.high, r1.ratio);
  EXPECT_GT(r1.low, 1.0);
}

TEST(PairedRatioOfMedians, ZeroMedianOfASkipsResample) {
  const auto r = PairedRatioOfMedians({0.0, 0.0}, {1.0, 1.0}, 3, 100);
  EXPECT_TRUE(std::isnan(r.ratio));
  EXPECT_EQ(r.resamples, 0);
  EXPECT_TRUE(std::isnan(r.low));
}

}  // namespace
}  // namespace fastenough::stats
