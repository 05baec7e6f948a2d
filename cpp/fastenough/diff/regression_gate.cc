#include "fastenough/diff/regression_gate.h"

#include <cmath>
#include <limits>
#include <utility>

namespace fastenough::diff {

const char* GateStatusName(GateStatus s) {
  switch (s) {
    case GateStatus::kOk: return "ok";
    case GateStatus::kRegression: return "regression";
    case GateStatus::kNotComparable: return "not-comparable";
  }
  return "?";
}

std::vector<double> PerUnitTimes(const std::vector<double>& durations_ns,
                                 const std::vector<double>& items) {
  if (items.empty()) return durations_ns;
  std::vector<double> out(durations_ns.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < durations_ns.size() && i < items.size(); ++i) {
    if (items[i] > 0) out[i] = durations_ns[i] / items[i];
  }
  return out;
}

stats::LogMedianEstimate EstimateSide(const GateSideInput& side) {
  if (!side.durations_ns.empty()) {
    return stats::EstimateLogMedian(PerUnitTimes(side.durations_ns, side.items));
  }
  // Dividing every step by the same items per step divides each quantile.
  const double per = side.items_per_step > 0 ? side.items_per_step : 1.0;
  return stats::EstimateLogMedianFromQuantiles(side.median_ns / per, side.p10_ns / per,
                                               side.p90_ns / per, side.count);
}

GateResult DecideRegression(const stats::LogMedianEstimate& a, const stats::LogMedianEstimate& b,
                            double max_regression, double confidence) {
  GateResult g;
  g.max_regression = max_regression;
  g.ratio = stats::RatioOfMedians(a, b, confidence);
  g.slowdown = g.ratio.ratio - 1.0;
  g.slowdown_low = g.ratio.low - 1.0;
  g.slowdown_high = g.ratio.high - 1.0;
  if (a.count < kMinGateSteps || b.count < kMinGateSteps) {
    std::string few;
    for (const auto& [side, e] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
      if (e->count >= kMinGateSteps) continue;
      few += (few.empty() ? "" : ", ") + std::string(side) + " has " + std::to_string(e->count);
    }
    g.reason = few + " steady step(s) with a usable time, fewer than " +
               std::to_string(kMinGateSteps) +
               ": too few for a median and its spread; run more steps";
    return g;
  }
  if (std::isnan(g.ratio.low) || std::isnan(g.ratio.high)) {
    g.reason = "no interval for B/A (a side's step times are unusable)";
    return g;
  }
  g.status = g.slowdown_low > max_regression ? GateStatus::kRegression : GateStatus::kOk;
  return g;
}

}  // namespace fastenough::diff
