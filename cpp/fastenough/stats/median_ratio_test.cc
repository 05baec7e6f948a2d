#include "fastenough/stats/median_ratio.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace fastenough::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// References: Python's statistics.NormalDist().inv_cdf.
TEST(NormalQuantile, MatchesReference) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.9599639845400536, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.9), 1.2815515655446008, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.75), 0.6744897501960817, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.025), -1.9599639845400536, 1e-13);
  EXPECT_EQ(NormalQuantile(0.5), 0.0);
  EXPECT_TRUE(std::isnan(NormalQuantile(0.0)));
  EXPECT_TRUE(std::isnan(NormalQuantile(1.0)));
  EXPECT_TRUE(std::isnan(NormalQuantile(kNaN)));
}

TEST(BinomialHalfCdf, HandCounted) {
  // C(10, 0) + C(10, 1) = 11 of 1024; + C(10, 2..4) = 45 + 120 + 210.
  EXPECT_NEAR(BinomialHalfCdf(10, 1), 11.0 / 1024.0, 1e-15);
  EXPECT_NEAR(BinomialHalfCdf(10, 4), 386.0 / 1024.0, 1e-15);
  EXPECT_EQ(BinomialHalfCdf(10, -1), 0.0);
  EXPECT_EQ(BinomialHalfCdf(10, 10), 1.0);
  // Symmetry: P(<= n/2 - 1) = (1 - P(= n/2)) / 2, at a size where C(n, k)
  // overflows a double; P(= 1000 of 2000) = 0.017839... (C(2000,1000) / 2^2000).
  EXPECT_NEAR(BinomialHalfCdf(2000, 999), (1.0 - 0.01783901114585432) / 2.0, 1e-12);
}

TEST(EstimateLogMedian, OrderStatisticsOfTenValues) {
  // n = 10: c = round(5 - sqrt(10)) = round(1.84) = 2, so the interval is
  // [y_(2), y_(9)] = [2, 9], missing the median on each side with probability
  // P(Bin(10, 1/2) <= 1) = 11/1024; z = Phi^-1(1 - 11/1024) = 2.2993622974.
  const LogMedianEstimate e = EstimateLogMedian({7, 3, 10, 1, 5, 2, 9, 4, 8, 6});
  EXPECT_EQ(e.count, 10);
  EXPECT_DOUBLE_EQ(e.median, 5.5);
  EXPECT_NEAR(e.log_se, (std::log(9.0) - std::log(2.0)) / (2 * 2.2993622974032286), 1e-12);
  EXPECT_NEAR(e.log_se, 0.3270640295517795, 1e-12);
}

TEST(EstimateLogMedian, EdgeCases) {
  EXPECT_EQ(EstimateLogMedian({}).count, 0);
  EXPECT_TRUE(std::isnan(EstimateLogMedian({}).median));
  const LogMedianEstimate one = EstimateLogMedian({4});
  EXPECT_EQ(one.median, 4);
  EXPECT_TRUE(std::isnan(one.log_se));
  // Unusable times are dropped: 12 values, 2 of them not times.
  const LogMedianEstimate e = EstimateLogMedian({5, 5, 5, 5, 5, 0, kNaN, 5, 5, 5, 5, 5});
  EXPECT_EQ(e.count, 10);
  EXPECT_EQ(e.median, 5);
  EXPECT_EQ(e.log_se, 0.0);  // no spread
}

TEST(EstimateLogMedianFromQuantiles, LogNormalReading) {
  // sigma_log = 0.1: p10 and p90 at exp(-+0.1 * 1.28155) around the median;
  // se = sqrt(pi / 2) * 0.1 / sqrt(100).
  const LogMedianEstimate e =
      EstimateLogMedianFromQuantiles(100, 87.9716874715958, 113.67293600260639, 100);
  EXPECT_EQ(e.count, 100);
  EXPECT_EQ(e.median, 100);
  EXPECT_NEAR(e.log_se, 0.012533141373155001, 1e-12);
  EXPECT_TRUE(std::isnan(EstimateLogMedianFromQuantiles(100, 120, 130, 100).log_se));
  EXPECT_TRUE(std::isnan(EstimateLogMedianFromQuantiles(100, 90, 110, 1).log_se));
}

TEST(RatioOfMedians, HandComputedInterval) {
  // B = 1.3 A, the same spread on both sides: se = sqrt(2) * 0.32706..., the
  // interval 1.3 exp(-+1.95996 se).
  std::vector<double> a = {7, 3, 10, 1, 5, 2, 9, 4, 8, 6}, b;
  for (double v : a) b.push_back(1.3 * v);
  const MedianRatio r = RatioOfMedians(EstimateLogMedian(a), EstimateLogMedian(b));
  EXPECT_NEAR(r.ratio, 1.3, 1e-12);
  EXPECT_NEAR(r.low, 0.5250854255685464, 1e-10);
  EXPECT_NEAR(r.high, 3.218523915742129, 1e-9);
  EXPECT_EQ(r.confidence, 0.95);
}

TEST(RatioOfMedians, NoSpreadIsThePointAndBadInputIsNaN) {
  const LogMedianEstimate a{20, 100, 0}, b{20, 150, 0};
  const MedianRatio r = RatioOfMedians(a, b);
  EXPECT_EQ(r.ratio, 1.5);
  EXPECT_EQ(r.low, 1.5);
  EXPECT_EQ(r.high, 1.5);
  EXPECT_TRUE(std::isnan(RatioOfMedians(a, b, 1.0).low));
  EXPECT_TRUE(std::isnan(RatioOfMedians(a, LogMedianEstimate{1, 150, kNaN}).low));
  EXPECT_TRUE(std::isnan(RatioOfMedians(LogMedianEstimate{}, b).ratio));
}

// Coverage: two independent log-normal samples of one distribution (skewed,
// like step times); the 95% interval of B/A should hold 1 in about 95% of
// trials. The order-statistic SE is conservative at small n, never narrow.
double Coverage(int n, int trials, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> step(0.0, 0.3);
  int held = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a(n), b(n);
    for (double& v : a) v = step(rng);
    for (double& v : b) v = step(rng);
    const MedianRatio r = RatioOfMedians(EstimateLogMedian(a), EstimateLogMedian(b));
    held += (r.low <= 1.0 && 1.0 <= r.high) ? 1 : 0;
  }
  return static_cast<double>(held) / trials;
}

TEST(RatioOfMedians, CoversTheTrueRatio) {
  for (int n : {10, 30, 200}) {
    SCOPED_TRACE(n);
    const double c = Coverage(n, 4000, 7 + n);
    // 4000 trials: the binomial sd of a 95% rate is 0.0034.
    EXPECT_GT(c, 0.93);
    EXPECT_LT(c, 0.995);
  }
}

}  // namespace
}  // namespace fastenough::stats
