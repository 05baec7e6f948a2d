// Robust summary of repeated timings (fastenough.time, sweep_batch, abba).
//
// Quantiles are stats::Quantile (quantile.h: linear interpolation, numpy's "linear"):
// q1 = p25, q3 = p75, iqr = q3 - q1. MAD is the raw median absolute deviation
// from the median (no 1.4826 normal-consistency factor: it describes the
// spread of the rounds, it does not estimate a sigma).
// Edge cases (the google/benchmark rule):
//   n = 0: count 0, every other field NaN.
//   n = 1: median = q1 = q3 = min = max = the value; iqr = mad = 0.
//   n = 2: median = mean of the two, q1 = x0 + (x1 - x0) / 4,
//          q3 = x0 + 3 (x1 - x0) / 4, iqr = (x1 - x0) / 2, mad = (x1 - x0) / 2.
// NaN inputs are dropped before summarising (an absent round, not a value).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace fastenough::stats {

struct RobustSummary {
  int64_t count = 0;
  double median = std::numeric_limits<double>::quiet_NaN();
  double q1 = std::numeric_limits<double>::quiet_NaN();
  double q3 = std::numeric_limits<double>::quiet_NaN();
  double iqr = std::numeric_limits<double>::quiet_NaN();
  double mad = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

RobustSummary SummarizeRobust(const std::vector<double>& values);

// Adaptive warmup's stopping rule: two consecutive rounds agree when
// |current - previous| <= tolerance * min(|previous|, |current|), i.e. the
// larger is within `tolerance` of the smaller. Both 0: agree. Any NaN, a
// negative tolerance, or one value 0 and the other not: disagree.
bool RoundsAgree(double previous, double current, double tolerance);

}  // namespace fastenough::stats
