#include "fastenough/stats/paired_ratio.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>


namespace fastenough::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Reference quantiles: scipy.stats.t.isf((1 - confidence) / 2, dof), and the
// usual printed tables to the digits they give.
TEST(StudentTCritical, MatchesTables) {
  EXPECT_NEAR(StudentTCritical(1, 0.95), 12.7062, 1e-3);
  EXPECT_NEAR(StudentTCritical(3, 0.95), 3.18245, 1e-3);
  EXPECT_NEAR(StudentTCritical(5, 0.95), 2.57058, 1e-3);
  EXPECT_NEAR(StudentTCritical(10, 0.99), 3.16927, 1e-3);
  // Large dof tends to the normal quantile 1.959964; t(1e6) = 1.9599664.
  EXPECT_NEAR(StudentTCritical(1e6, 0.95), 1.95996, 1e-4);
}

TEST(StudentTCritical, MatchesTablesToTenDigits) {
  // The tolerances above would pass a crude approximation; these would not.
  EXPECT_NEAR(StudentTCritical(2, 0.95), 4.302652729749464, 1e-9);
  EXPECT_NEAR(StudentTCritical(3, 0.95), 3.182446305284263, 1e-9);
  EXPECT_NEAR(StudentTCritical(5, 0.95), 2.570581835636314, 1e-9);
  EXPECT_NEAR(StudentTCritical(10, 0.99), 3.169272672616951, 1e-9);
}

TEST(StudentTCritical, MatchesClosedFormsForOneAndTwoDof) {
  // dof = 1 is the Cauchy distribution: P(|T| <= t) = (2 / pi) atan(t), so
  // t = tan(pi c / 2). dof = 2: P(|T| <= t) = t / sqrt(2 + t^2), so
  // t = c sqrt(2 / (1 - c^2)). Exact, independent of the incomplete beta.
  const double pi = std::acos(-1.0);
  for (double c : {0.01, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999}) {
    SCOPED_TRACE(c);
    const double t1 = std::tan(pi * c / 2.0);
    EXPECT_NEAR(StudentTCritical(1, c), t1, 1e-10 * t1);
    const double t2 = c * std::sqrt(2.0 / (1.0 - c * c));
    EXPECT_NEAR(StudentTCritical(2, c), t2, 1e-10 * t2);
  }
}

TEST(StudentTCritical, InvalidArgumentsAreNaN) {
  EXPECT_TRUE(std::isnan(StudentTCritical(0, 0.95)));
  EXPECT_TRUE(std::isnan(StudentTCritical(0.5, 0.95)));
  EXPECT_TRUE(std::isnan(StudentTCritical(kNaN, 0.95)));
  EXPECT_TRUE(std::isnan(StudentTCritical(kInf, 0.95)));
  EXPECT_TRUE(std::isnan(StudentTCritical(5, 1.0)));
  EXPECT_TRUE(std::isnan(StudentTCritical(5, 0.0)));
  EXPECT_TRUE(std::isnan(StudentTCritical(5, -0.5)));
  EXPECT_TRUE(std::isnan(StudentTCritical(5, kNaN)));
}

TEST(PairedLogRatio, EmptyAndMismatched) {
  const auto e = PairedLogRatio({}, {});
  EXPECT_EQ(e.pairs, 0);
  EXPECT_TRUE(std::isnan(e.ratio));
  EXPECT_TRUE(std::isnan(e.low));
  EXPECT_TRUE(std::isnan(e.high));
  const auto m = PairedLogRatio({1.0, 2.0}, {1.0});
  EXPECT_EQ(m.pairs, 0);
  EXPECT_TRUE(std::isnan(m.ratio));
  EXPECT_TRUE(std::isnan(m.low));
  EXPECT_TRUE(std::isnan(m.high));
}

TEST(PairedLogRatio, OnePairHasExactRatioAndNoInterval) {
  const auto r = PairedLogRatio({3.0}, {7.0});
  EXPECT_EQ(r.pairs, 1);
  EXPECT_EQ(r.ratio, 7.0 / 3.0);  // b / a itself, not exp(log(b / a))
  EXPECT_TRUE(std::isnan(r.low));
  EXPECT_TRUE(std::isnan(r.high));
  EXPECT_EQ(r.confidence, 0.95);
}

TEST(PairedLogRatio, ConstantRatioGivesPointInterval) {
  const auto r = PairedLogRatio({1, 2, 3, 4}, {2, 4, 6, 8});
  EXPECT_EQ(r.pairs, 4);
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_DOUBLE_EQ(r.low, 2.0);
  EXPECT_DOUBLE_EQ(r.high, 2.0);
  // Equal log ratios whose summed mean drifts by an ulp ((d + d + d) / 3 != d
  // for d = log 1.25): still exactly a point, not a sliver of an interval.
  const auto q = PairedLogRatio({1, 2, 4}, {1.25, 2.5, 5.0});
  EXPECT_DOUBLE_EQ(q.ratio, 1.25);
  EXPECT_EQ(q.low, q.ratio);
  EXPECT_EQ(q.high, q.ratio);
}

TEST(PairedLogRatio, ThreePairsByHand) {
  // d = {0.1, 0.2, 0.3}: mean 0.2, sample sd 0.1 (squares 0.01 + 0 + 0.01 over
  // n - 1 = 2), t(2, 0.95) = 4.302652729749464, half = t * 0.1 / sqrt(3).
  const auto r = PairedLogRatio({1, 1, 1}, {std::exp(0.1), std::exp(0.2), std::exp(0.3)});
  const double half = 4.302652729749464 * 0.1 / std::sqrt(3.0);  // 0.248414
  EXPECT_EQ(r.pairs, 3);
  EXPECT_NEAR(r.ratio, std::exp(0.2), 1e-12);
  EXPECT_NEAR(r.low, std::exp(0.2 - half), 1e-9);   // 0.952739
  EXPECT_NEAR(r.high, std::exp(0.2 + half), 1e-9);  // 1.565826
  // The same with a non-trivial a: only b / a matters.
  const auto s = PairedLogRatio({2, 5, 0.5}, {2 * std::exp(0.1), 5 * std::exp(0.2),
                                              0.5 * std::exp(0.3)});
  EXPECT_NEAR(s.low, r.low, 1e-12);
  EXPECT_NEAR(s.high, r.high, 1e-12);
}

TEST(PairedLogRatio, ConfidenceSetsTheWidth) {
  // Same data as ThreePairsByHand at 99%: t(2, 0.99) = 9.924843200918293.
  const std::vector<double> a{1, 1, 1};
  const std::vector<double> b{std::exp(0.1), std::exp(0.2), std::exp(0.3)};
  const auto r = PairedLogRatio(a, b, 0.99);
  const double half = 9.924843200918293 * 0.1 / std::sqrt(3.0);
  EXPECT_EQ(r.confidence, 0.99);
  EXPECT_NEAR(r.low, std::exp(0.2 - half), 1e-9);
  EXPECT_NEAR(r.high, std::exp(0.2 + half), 1e-9);
}

TEST(PairedLogRatio, InvalidConfidenceLeavesOnlyTheRatio) {
  const std::vector<double> a{1, 1, 1};
  const std::vector<double> b{std::exp(0.1), std::exp(0.2), std::exp(0.3)};
  for (double c : {0.0, 1.0, 1.5, kNaN}) {
    const auto r = PairedLogRatio(a, b, c);
    EXPECT_NEAR(r.ratio, std::exp(0.2), 1e-12);
    EXPECT_TRUE(std::isnan(r.low));
    EXPECT_TRUE(std::isnan(r.high));
  }
  // Also when there is no spread: the point is not an interval at 100%.
  const auto p = PairedLogRatio({1, 2}, {2, 4}, 1.0);
  EXPECT_DOUBLE_EQ(p.ratio, 2.0);
  EXPECT_TRUE(std::isnan(p.low));
}

TEST(PairedLogRatio, UnusablePairsAreSkippedAndNotCounted) {
  // Only (1, 2) and (1, 4) count; every other pair has a value that is 0,
  // negative, NaN or infinite on one side, and would move the result (or make
  // it NaN) if it were used.
  const std::vector<double> a{1, 0, kNaN, 2, -1, 1, 3, 5};
  const std::vector<double> b{2, 5, 3, kInf, 1, 4, 0, -kInf};
  const auto r = PairedLogRatio(a, b);
  const auto clean = PairedLogRatio({1, 1}, {2, 4});
  EXPECT_EQ(r.pairs, 2);
  EXPECT_EQ(r.ratio, clean.ratio);
  EXPECT_EQ(r.low, clean.low);
  EXPECT_EQ(r.high, clean.high);
  EXPECT_NEAR(r.ratio, std::sqrt(8.0), 1e-12);  // geometric mean of 2 and 4
  // All pairs unusable: nothing counted.
  const auto none = PairedLogRatio({0, kNaN}, {1, 1});
  EXPECT_EQ(none.pairs, 0);
  EXPECT_TRUE(std::isnan(none.ratio));
}

// A standard normal from two mt19937_64 draws by Box-Muller. mt19937_64 is
// specified bit-for-bit by the standard; std::normal_distribution is not, so
// this keeps the simulation below the same on every standard library.
double Normal(std::mt19937_64& rng) {
  constexpr double kTwoPow53 = 9007199254740992.0;
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) / kTwoPow53;  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) / kTwoPow53;          // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::acos(-1.0) * u2);
}

using Interval = std::function<void(const std::vector<double>& a,
                                    const std::vector<double>& b, uint64_t experiment,
                                    double* low, double* high)>;

// Runs `experiments` A/B comparisons of n pairs of two identical commands
// (a_i, b_i independent, log-normal with sigma 0.2: a noisy machine) and
// returns how often the 95% interval excludes 1, i.e. claims a difference that
// is not there. A correct 95% interval does this 5% of the time.
double FalseClaimRate(size_t n, int experiments, uint64_t seed, const Interval& interval) {
  std::mt19937_64 rng(seed);
  std::vector<double> a(n), b(n);
  int claims = 0;
  for (int e = 0; e < experiments; ++e) {
    for (size_t i = 0; i < n; ++i) {
      a[i] = std::exp(0.2 * Normal(rng));
      b[i] = std::exp(0.2 * Normal(rng));
    }
    double low = kNaN, high = kNaN;
    interval(a, b, static_cast<uint64_t>(e), &low, &high);
    if (low > 1.0 || high < 1.0) ++claims;
  }
  return static_cast<double>(claims) / experiments;
}

TEST(PairedLogRatio, FalseClaimRateIsNominal) {
  const Interval t_interval = [](const std::vector<double>& a,
                                 const std::vector<double>& b, uint64_t,
                                 double* low, double* high) {
    const auto r = PairedLogRatio(a, b, 0.95);
    *low = r.low;
    *high = r.high;
  };
  // The log ratios here are exactly normal, so the t interval is exact: ~5%
  // at every n. 0.065 is 4.4 standard errors (sqrt(0.05 * 0.95 / 4000)) above.
  for (size_t n : {2, 4, 6}) {
    const double rate = FalseClaimRate(n, 4000, 20240601 + n, t_interval);
    EXPECT_LE(rate, 0.065) << "t interval, n = " << n;
    EXPECT_GE(rate, 0.035) << "t interval, n = " << n;  // not vacuously wide
  }

  // The method this replaced, the percentile bootstrap of a ratio of medians
  // (seeded, 2000 resamples), measured on the same data with 4000 experiments
  // before it was removed: n = 2: 49%, n = 3: 25%, n = 4: 13%, n = 5: 6.7%,
  // n = 6: 6.3%, n = 8: 5.1%. With few pairs there are few distinct resamples
  // and its interval is too narrow; the bounds above fail for it at n = 2, 4.
}

}  // namespace
}  // namespace fastenough::stats
