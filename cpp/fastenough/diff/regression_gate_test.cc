#include "fastenough/diff/regression_gate.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace fastenough::diff {
namespace {

// n steps around `ms` with planted +-5% noise: the factors 0.95 + 0.1 k / (n - 1),
// k = 0..n-1, in a scrambled order (k = 7 i mod n; 7 is prime to the n used).
std::vector<double> Steps(double ms, int n = 40) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(ms * 1e6 * (0.95 + 0.1 * ((7 * i) % n) / (n - 1)));
  }
  return out;
}

stats::LogMedianEstimate Estimate(const std::vector<double>& v) {
  return stats::EstimateLogMedian(v);
}

TEST(RegressionGate, EqualRunsAreOk) {
  const GateResult g = DecideRegression(Estimate(Steps(10)), Estimate(Steps(10)), 0.10);
  EXPECT_EQ(g.status, GateStatus::kOk);
  EXPECT_EQ(g.ratio.ratio, 1.0);
  EXPECT_EQ(g.slowdown, 0.0);
  EXPECT_TRUE(g.reason.empty());
}

TEST(RegressionGate, ThirtyPercentSlowerBeyondTenIsARegression) {
  // n = 40: c = round(20 - 6.32) = 14, so [y_(14), y_(27)] = 10 ms x [0.95 +
  // 0.1 13/39, 0.95 + 0.1 26/39] on A (13 ms x the same on B), the median 10
  // ms (13 ms); se = log(y_(27) / y_(14)) / (2 z) on each side with
  // z = Phi^-1(1 - P(Bin(40, 1/2) <= 13)) = 2.06973; ratio 1.3 and
  // low = 1.3 exp(-1.95996 sqrt(2) se) = 1.271303.
  const GateResult g = DecideRegression(Estimate(Steps(10)), Estimate(Steps(13)), 0.10);
  EXPECT_EQ(g.status, GateStatus::kRegression);
  EXPECT_NEAR(g.ratio.ratio, 1.3, 1e-12);
  const double z = stats::NormalQuantile(1 - stats::BinomialHalfCdf(40, 13));
  EXPECT_NEAR(z, 2.0697334948780295, 1e-12);
  const double se = std::log((0.95 + 0.1 * 26 / 39) / (0.95 + 0.1 * 13 / 39)) / (2 * z);
  EXPECT_NEAR(se, 0.008053312262204135, 1e-14);
  EXPECT_NEAR(g.ratio.low, 1.3 * std::exp(-1.9599639845400536 * std::sqrt(2.0) * se), 1e-12);
  EXPECT_NEAR(g.slowdown_low, g.ratio.low - 1, 1e-15);
  EXPECT_GT(g.slowdown_low, 0.10);
  EXPECT_NEAR(g.slowdown_low, 0.27130258451460354, 1e-12);
}

TEST(RegressionGate, FivePercentSlowerWithinTenIsOk) {
  const GateResult g = DecideRegression(Estimate(Steps(10)), Estimate(Steps(10.5)), 0.10);
  EXPECT_EQ(g.status, GateStatus::kOk);
  EXPECT_NEAR(g.slowdown, 0.05, 1e-12);
  // The same se as above: [1.05 exp(-+1.95996 sqrt(2) se)] - 1.
  EXPECT_NEAR(g.slowdown_low, 0.026821318261795124, 1e-12);
  EXPECT_NEAR(g.slowdown_high, 0.07370189963168472, 1e-12);
}

TEST(RegressionGate, TooFewStepsAreNotComparable) {
  const GateResult g = DecideRegression(Estimate(Steps(10, 5)), Estimate(Steps(13)), 0.10);
  EXPECT_EQ(g.status, GateStatus::kNotComparable);
  EXPECT_EQ(g.reason,
            "A has 5 steady step(s) with a usable time, fewer than 10: too few for a median "
            "and its spread; run more steps");
  EXPECT_STREQ(GateStatusName(g.status), "not-comparable");
  const GateResult both = DecideRegression(Estimate(Steps(10, 9)), Estimate(Steps(13, 3)), 0.1);
  EXPECT_EQ(both.reason.substr(0, 23), "A has 9, B has 3 steady");
}

TEST(RegressionGate, PerUnitTimes) {
  EXPECT_EQ(PerUnitTimes({100, 200}, {}), (std::vector<double>{100, 200}));
  const std::vector<double> per_item = PerUnitTimes({100, 200, 300}, {4, 8, 0});
  EXPECT_EQ(per_item[0], 25);
  EXPECT_EQ(per_item[1], 25);
  EXPECT_TRUE(std::isnan(per_item[2]));
}

TEST(RegressionGate, SideFromStepsOrFromASummary) {
  GateSideInput steps;
  steps.durations_ns = {400, 800, 1200};
  steps.items = {4, 8, 12};
  const stats::LogMedianEstimate e = EstimateSide(steps);
  EXPECT_EQ(e.count, 3);
  EXPECT_EQ(e.median, 100);  // every step took 100 ns per item
  EXPECT_EQ(e.log_se, 0.0);
  // A summary per step of batches of 4: the quantiles per item are a quarter.
  GateSideInput summary;
  summary.median_ns = 400;
  summary.p10_ns = 4 * 87.9716874715958;
  summary.p90_ns = 4 * 113.67293600260639;
  summary.count = 100;
  summary.items_per_step = 4;
  const stats::LogMedianEstimate s = EstimateSide(summary);
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.median, 100);
  EXPECT_NEAR(s.log_se, 0.012533141373155001, 1e-12);  // as in median_ratio_test.cc
}

}  // namespace
}  // namespace fastenough::diff
