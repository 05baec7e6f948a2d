#include "fastenough/rundir/step_trend.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include "fastenough/stats/quantile.h"

namespace fastenough::rundir {

double SpearmanWithIndex(const std::vector<int64_t>& values) {
  const size_t n = values.size();
  if (n < 3) return 0;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(n);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && values[order[j + 1]] == values[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = mean_rank;
    i = j + 1;
  }
  const double mid = (static_cast<double>(n) - 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t k = 0; k < n; ++k) {
    const double x = static_cast<double>(k) - mid, y = rank[k] - mid;
    sxy += x * y;
    sxx += x * x;
    syy += y * y;
  }
  if (sxx <= 0 || syy <= 0) return 0;
  return sxy / std::sqrt(sxx * syy);
}

StepTrend AssessTrend(const std::vector<int64_t>& durations) {
  StepTrend t;
  t.steps = static_cast<int64_t>(durations.size());
  if (t.steps < kMinTrendSteps) return t;
  const size_t third = durations.size() / 3;
  t.head_median_ns = stats::QuantileNs({durations.begin(), durations.begin() + third}, 0.5);
  t.tail_median_ns = stats::QuantileNs({durations.end() - third, durations.end()}, 0.5);
  // The correlation of the medians of consecutive blocks (about kTrendBlocks
  // of them), not of single steps: a spike (another process took the core
  // for one step) lands in one block's tail and moves no median.
  const size_t block = std::max<size_t>(1, durations.size() / kTrendBlocks);
  std::vector<int64_t> medians;
  for (size_t i = 0; i + block <= durations.size(); i += block) {
    medians.push_back(stats::QuantileNs({durations.begin() + static_cast<std::ptrdiff_t>(i),
                                durations.begin() + static_cast<std::ptrdiff_t>(i + block)},
                               0.5));
  }
  t.rho = SpearmanWithIndex(medians);
  const double head = static_cast<double>(std::max<int64_t>(1, t.head_median_ns));
  const double tail = static_cast<double>(t.tail_median_ns);
  const bool slowed = tail >= kDriftRatio * head &&
                      t.tail_median_ns - t.head_median_ns >= kDriftMinRiseNs;
  t.drifts = slowed && t.rho >= kDriftRho;
  return t;
}

}  // namespace fastenough::rundir
