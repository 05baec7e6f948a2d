#include "fastenough/analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fastenough::analysis {

namespace {
// One definition for integer nanoseconds and for doubles (ratios, rates).
template <typename T>
double PercentileSortedOf(const std::vector<T>& x, double p) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  p = std::clamp(p, 0.0, 1.0);
  const double h = static_cast<double>(x.size() - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return static_cast<double>(x.back());
  const double frac = h - static_cast<double>(lo);
  // Interpolate on the difference (taken in T) so large ns values keep their precision.
  return static_cast<double>(x[lo]) + frac * static_cast<double>(x[lo + 1] - x[lo]);
}
}  // namespace

double PercentileSorted(const std::vector<int64_t>& x, double p) {
  return PercentileSortedOf(x, p);
}

double PercentileSorted(const std::vector<double>& x, double p) {
  return PercentileSortedOf(x, p);
}

double Percentile(std::vector<int64_t>& values, double p) {
  std::sort(values.begin(), values.end());
  return PercentileSorted(values, p);
}

double Percentile(std::vector<double>& values, double p) {
  std::sort(values.begin(), values.end());
  return PercentileSorted(values, p);
}

Distribution Summarize(std::vector<int64_t>& values) {
  Distribution d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<int64_t>(values.size());
  d.median = PercentileSorted(values, 0.5);
  d.p10 = PercentileSorted(values, 0.1);
  d.p90 = PercentileSorted(values, 0.9);
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
