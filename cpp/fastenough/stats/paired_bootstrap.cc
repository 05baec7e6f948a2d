#include "fastenough/stats/paired_bootstrap.h"

#include <algorithm>
#include <random>

#include "fastenough/analysis/statistics.h"

namespace fastenough::stats {

namespace {
using analysis::Percentile;
using analysis::PercentileSorted;

double Median(std::vector<double>& values) { return Percentile(values, 0.5); }
}  // namespace

RatioInterval PairedRatioOfMedians(const std::vector<double>& a,
                                   const std::vector<double>& b, uint64_t seed,
                                   int64_t resamples, double confidence) {
  RatioInterval out;
  out.confidence = confidence;
  out.seed = seed;
  if (a.empty() || a.size() != b.size()) return out;
  const size_t n = a.size();
  out.pairs = static_cast<int64_t>(n);
  std::vector<double> sa = a, sb = b;
  const double ma = Median(sa);
  if (ma != 0.0) out.ratio = Median(sb) / ma;
  if (n < 2 || resamples <= 0) return out;

  std::mt19937_64 rng(seed);
  std::vector<double> ra(n), rb(n), ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int64_t r = 0; r < resamples; ++r) {
    for (size_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(rng() % n);
      ra[i] = a[k];
      rb[i] = b[k];
    }
    const double m = Median(ra);
    if (m == 0.0) continue;
    ratios.push_back(Median(rb) / m);
  }
  out.resamples = static_cast<int64_t>(ratios.size());
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - confidence) / 2.0;
  out.low = PercentileSorted(ratios, tail);
  out.high = PercentileSorted(ratios, 1.0 - tail);
  return out;
}

}  // namespace fastenough::stats
