#include "fastenough/stats/median_ratio.h"

#include <algorithm>
#include <cmath>

#include "fastenough/stats/quantile.h"

namespace fastenough::stats {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// P(Z > x) for the standard normal.
double UpperTail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }
}  // namespace

double NormalQuantile(double p) {
  if (!(p > 0.0 && p < 1.0)) return kNaN;
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -NormalQuantile(1.0 - p);
  const double q = 1.0 - p;  // exact for p >= 0.5 (Sterbenz)
  // Bracket, then bisect: the tail is monotone, so this cannot fail. q >= 2^-53
  // puts the quantile below 8.3, so the bracket stops at 16.
  double lo = 0.0, hi = 1.0;
  while (UpperTail(hi) > q) {
    lo = hi;
    hi *= 2.0;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (UpperTail(mid) > q) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

double BinomialHalfCdf(int64_t n, int64_t k) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  // Terms C(n, i) 2^-n in log space: C(n, i) overflows a double past n ~ 1000.
  const double nd = static_cast<double>(n);
  const double log_front = std::lgamma(nd + 1.0) - nd * std::log(2.0);
  double sum = 0.0;
  for (int64_t i = 0; i <= k; ++i) {
    const double id = static_cast<double>(i);
    sum += std::exp(log_front - std::lgamma(id + 1.0) - std::lgamma(nd - id + 1.0));
  }
  return std::min(sum, 1.0);
}

LogMedianEstimate EstimateLogMedian(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !(std::isfinite(v) && v > 0.0); });
  LogMedianEstimate out;
  out.count = static_cast<int64_t>(values.size());
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  out.median = QuantileSorted(values, 0.5);
  const int64_t n = out.count;
  if (n < 2) return out;
  const double nd = static_cast<double>(n);
  const int64_t c = std::max<int64_t>(1, std::llround(nd / 2.0 - std::sqrt(nd)));
  const double lower = values[static_cast<size_t>(c - 1)];   // y_(c)
  const double upper = values[static_cast<size_t>(n - c)];   // y_(n - c + 1)
  // The order-statistic interval misses the median on each side with
  // probability P(Bin(n, 1/2) <= c - 1): its half-width is z standard errors.
  const double z = NormalQuantile(1.0 - BinomialHalfCdf(n, c - 1));
  out.log_se = upper == lower ? 0.0 : (std::log(upper) - std::log(lower)) / (2.0 * z);
  return out;
}

LogMedianEstimate EstimateLogMedianFromQuantiles(double median, double p10, double p90,
                                                 int64_t count) {
  LogMedianEstimate out;
  const bool valid = std::isfinite(median) && std::isfinite(p10) && std::isfinite(p90) &&
                     p10 > 0.0 && p10 <= median && median <= p90 && count >= 2;
  if (!valid) return out;
  out.count = count;
  out.median = median;
  const double sigma_log = (std::log(p90) - std::log(p10)) / (2.0 * NormalQuantile(0.9));
  out.log_se = std::sqrt(std::acos(-1.0) / 2.0) * sigma_log / std::sqrt(static_cast<double>(count));
  return out;
}

MedianRatio RatioOfMedians(const LogMedianEstimate& a, const LogMedianEstimate& b,
                           double confidence) {
  MedianRatio out;
  out.confidence = confidence;
  if (!(a.median > 0.0 && b.median > 0.0)) return out;
  out.ratio = b.median / a.median;
  if (!(confidence > 0.0 && confidence < 1.0)) return out;
  if (std::isnan(a.log_se) || std::isnan(b.log_se)) return out;
  const double se = std::sqrt(a.log_se * a.log_se + b.log_se * b.log_se);
  if (se == 0.0) {
    out.low = out.high = out.ratio;
    return out;
  }
  const double half = NormalQuantile(0.5 + confidence / 2.0) * se;
  const double log_ratio = std::log(out.ratio);
  out.low = std::exp(log_ratio - half);
  out.high = std::exp(log_ratio + half);
  return out;
}

}  // namespace fastenough::stats
