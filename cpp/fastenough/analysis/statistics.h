// The step-time distribution (count, median, p10, p90, mean, min, max) of a
// list of durations. Its quantiles are stats::Quantile (stats/quantile.h:
// linear interpolation, numpy's "linear"; n = 0 gives NaN, n = 1 that value,
// n = 2 the median is the mean of the two).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace fastenough::analysis {

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
