#include "fastenough/stats/quantile.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fastenough::stats {

namespace {
// One definition for integer nanoseconds and for doubles (ratios, rates).
template <typename T>
double QuantileSortedOf(std::span<const T> x, double p) {
  if (x.empty() || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
  p = std::clamp(p, 0.0, 1.0);
  const double h = static_cast<double>(x.size() - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return static_cast<double>(x.back());
  const double frac = h - static_cast<double>(lo);
  // Interpolate on the difference (taken in T) so large ns values keep their
  // precision: 1e12 + 100 and 1e12 have the median 1e12 + 50 exactly.
  return static_cast<double>(x[lo]) + frac * static_cast<double>(x[lo + 1] - x[lo]);
}
}  // namespace

double QuantileSorted(std::span<const int64_t> sorted, double p) {
  return QuantileSortedOf(sorted, p);
}

double QuantileSorted(std::span<const double> sorted, double p) {
  return QuantileSortedOf(sorted, p);
}

double Quantile(std::vector<int64_t> values, double p) {
  std::sort(values.begin(), values.end());
  return QuantileSorted(std::span<const int64_t>(values), p);
}

double Quantile(std::vector<double> values, double p) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  std::sort(values.begin(), values.end());
  return QuantileSorted(std::span<const double>(values), p);
}

double Median(std::vector<int64_t> values) { return Quantile(std::move(values), 0.5); }

double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

int64_t QuantileNs(std::vector<int64_t> values, double p) {
  const double q = Quantile(std::move(values), p);
  return std::isnan(q) ? 0 : static_cast<int64_t>(std::llround(q));
}

}  // namespace fastenough::stats
