// Order statistics with documented edge cases (the google/benchmark rule).
//
// Percentile(p) uses linear interpolation between closest ranks, numpy's
// default method ("linear", type 7 of Hyndman & Fan): with the n values
// sorted as x[0..n-1], h = (n - 1) * p, the result is
// x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
//   n = 0: NaN (absent; the JSON writer prints null).
//   n = 1: that value for every p.
//   n = 2: x0 + p * (x1 - x0), so the median is the mean of the two.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace fastenough::analysis {

// Sorts `values` in place and returns the p-quantile (p in [0, 1]).
double Percentile(std::vector<int64_t>& values, double p);
double Percentile(std::vector<double>& values, double p);
// Same, for values already sorted ascending.
double PercentileSorted(const std::vector<int64_t>& sorted, double p);
double PercentileSorted(const std::vector<double>& sorted, double p);

struct Distribution {
  int64_t count = 0;
  // NaN when count == 0 (all four), also in a default-constructed one.
  double median = std::numeric_limits<double>::quiet_NaN();
  double p10 = std::numeric_limits<double>::quiet_NaN();
  double p90 = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  int64_t min = 0;  // 0 when count == 0
  int64_t max = 0;
};
// Sorts `values` in place.
Distribution Summarize(std::vector<int64_t>& values);

}  // namespace fastenough::analysis
