#include "fastenough/stats/robust_summary.h"

#include <algorithm>
#include <cmath>

#include "fastenough/stats/quantile.h"

namespace fastenough::stats {

namespace {
std::vector<double> SortedFinite(const std::vector<double>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) {
    if (!std::isnan(v)) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

RobustSummary SummarizeRobust(const std::vector<double>& values) {
  RobustSummary s;
  const std::vector<double> sorted = SortedFinite(values);
  if (sorted.empty()) return s;
  s.count = static_cast<int64_t>(sorted.size());
  s.median = QuantileSorted(sorted, 0.5);
  s.q1 = QuantileSorted(sorted, 0.25);
  s.q3 = QuantileSorted(sorted, 0.75);
  s.iqr = s.q3 - s.q1;
  s.min = sorted.front();
  s.max = sorted.back();
  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (double v : sorted) deviations.push_back(std::fabs(v - s.median));
  s.mad = Median(std::move(deviations));
  return s;
}

bool RoundsAgree(double previous, double current, double tolerance) {
  if (std::isnan(previous) || std::isnan(current) || std::isnan(tolerance) ||
      tolerance < 0.0) {
    return false;
  }
  const double small = std::min(std::fabs(previous), std::fabs(current));
  return std::fabs(current - previous) <= tolerance * small;
}

}  // namespace fastenough::stats
