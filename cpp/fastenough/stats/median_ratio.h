// The ratio of two medians with a distribution-free interval, for the
// regression gate of `fastenough diff --max-regression` (diff/regression_gate.h).
//
// Two runs are two independent samples of step times, not pairs (unlike
// `fastenough ab`, paired_ratio.h). Step times are skewed and carry outliers
// (a collection, a page fault, another tenant), so the centre is the median,
// and each side's spread enters through the standard error of its log median:
//
//   From a sample (Bonett & Price 2002, "Statistical inference for a linear
//   function of medians", Psychological Methods 7(3); Price & Bonett 2002 for
//   ratios): with the n values sorted as y_(1) <= ... <= y_(n), the order
//   statistics [y_(c), y_(n-c+1)], c = round(n/2 - sqrt(n)) (at least 1), hold
//   the population median with the exact, distribution-free probability
//   1 - 2 P(Bin(n, 1/2) <= c - 1). Reading that interval as median +- z SE
//   with z = Phi^-1(1 - P(Bin(n, 1/2) <= c - 1)) gives the standard error; on
//   the log scale (order statistics commute with log)
//       se = (log y_(n-c+1) - log y_(c)) / (2 z).
//   No distribution is assumed, no seed, nothing resampled: the same steps
//   give the same interval, and its width follows the spread of the middle of
//   the distribution, not its tails.
//
//   From a summary (a report.json without its steps): assuming log-normal
//   step times, sigma_log = (log p90 - log p10) / (2 Phi^-1(0.9)), and the
//   sample median's standard error is sqrt(pi / 2) sigma_log / sqrt(n). An
//   approximation; the sample gives the real figure.
//
// The ratio b / a of the medians then has the interval
//   exp(log(m_b / m_a) +- Phi^-1((1 + confidence) / 2) sqrt(se_a^2 + se_b^2)).
//
// Edge cases:
//   Values that are not finite or <= 0 are dropped (a time must be positive).
//   0 values: count 0, everything NaN. 1 value: median = that value, se NaN
//   (one step shows no spread). All values equal: se = 0 (the interval of the
//   ratio is then the point when the other side has se 0 too).
//   A NaN se on either side, or confidence outside (0, 1): interval NaN.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace fastenough::stats {

struct LogMedianEstimate {
  int64_t count = 0;
  double median = std::numeric_limits<double>::quiet_NaN();
  double log_se = std::numeric_limits<double>::quiet_NaN();  // standard error of log(median)
};

// From every value of one side (Bonett & Price, above).
LogMedianEstimate EstimateLogMedian(std::vector<double> values);

// From a summary: median, p10 and p90 of count values (log-normal, above).
// NaN fields unless 0 < p10 <= median <= p90 are finite and count >= 2.
LogMedianEstimate EstimateLogMedianFromQuantiles(double median, double p10, double p90,
                                                 int64_t count);

struct MedianRatio {
  double ratio = std::numeric_limits<double>::quiet_NaN();  // median b / median a
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  double confidence = 0.95;
};

MedianRatio RatioOfMedians(const LogMedianEstimate& a, const LogMedianEstimate& b,
                           double confidence = 0.95);

// Phi^-1(p): the standard normal quantile, NaN outside (0, 1). Bisection on
// std::erfc, to a relative 1e-14.
double NormalQuantile(double p);

// P(Bin(n, 1/2) <= k): 0 for k < 0, 1 for k >= n.
double BinomialHalfCdf(int64_t n, int64_t k);

}  // namespace fastenough::stats
