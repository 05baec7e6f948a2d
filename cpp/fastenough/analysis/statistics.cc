#include "fastenough/analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fastenough/stats/quantile.h"

namespace fastenough::analysis {

Distribution Summarize(std::vector<int64_t>& values) {
  Distribution d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<int64_t>(values.size());
  d.median = stats::QuantileSorted(values, 0.5);
  d.p10 = stats::QuantileSorted(values, 0.1);
  d.p90 = stats::QuantileSorted(values, 0.9);
  if (values.empty()) {
    d.mean = std::numeric_limits<double>::quiet_NaN();
    return d;
  }
  long double sum = 0;
  for (int64_t v : values) sum += v;
  d.mean = static_cast<double>(sum / values.size());
  d.min = values.front();
  d.max = values.back();
  return d;
}

}  // namespace fastenough::analysis
