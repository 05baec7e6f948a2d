// The verdict of `fastenough diff A B --max-regression PCT`: is B's steady
// time per item (per step when items are unknown) slower than A's by more
// than PCT, beyond what the two runs' own step-time spread explains?
//
// The statistic is the ratio of the medians B / A with its interval
// (stats/median_ratio.h); the slowdown is ratio - 1. Verdict:
//   not comparable  fewer than kMinGateSteps steady steps on a side (a median
//                   and its spread from a handful of steps say little), or no
//                   interval (a side without usable times);
//   regression      the interval's lower end of the slowdown exceeds PCT: even
//                   the most favourable reading of the spread leaves B slower
//                   than allowed;
//   ok              otherwise.
// Whether the two runs measured the same work (batch size, device) is for
// the caller to check before (python/fastenough/diff/gate.py).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fastenough/stats/median_ratio.h"

namespace fastenough::diff {

inline constexpr int64_t kMinGateSteps = 10;

enum class GateStatus : uint8_t { kOk, kRegression, kNotComparable };
const char* GateStatusName(GateStatus s);  // "ok", "regression", "not-comparable"

struct GateResult {
  GateStatus status = GateStatus::kNotComparable;
  stats::MedianRatio ratio;
  double max_regression = 0;
  // ratio - 1, and the interval's ends minus 1 (NaN when absent).
  double slowdown = 0, slowdown_low = 0, slowdown_high = 0;
  std::string reason;  // why not comparable; empty otherwise
};

// The time per unit of each step: duration / items when `items` is given (one
// per step), the duration itself when `items` is empty. A step whose items
// are not positive gives NaN (left out by the estimate).
std::vector<double> PerUnitTimes(const std::vector<double>& durations_ns,
                                 const std::vector<double>& items);

// One side as the gate sees it: the steady steps of a run directory, or,
// without them, the steady summary of a report.json.
struct GateSideInput {
  std::vector<double> durations_ns;  // one per steady step
  std::vector<double> items;         // one per step, or empty: per step
  // Used when durations_ns is empty: median, p10, p90 of `count` steady
  // steps, per step; items_per_step > 0 turns them into times per item.
  double median_ns = std::numeric_limits<double>::quiet_NaN();
  double p10_ns = std::numeric_limits<double>::quiet_NaN();
  double p90_ns = std::numeric_limits<double>::quiet_NaN();
  int64_t count = 0;
  double items_per_step = 0;
};

// The side's median time per unit and its spread (stats/median_ratio.h):
// from the steps when there are any, else from the summary.
stats::LogMedianEstimate EstimateSide(const GateSideInput& side);

GateResult DecideRegression(const stats::LogMedianEstimate& a, const stats::LogMedianEstimate& b,
                            double max_regression, double confidence = 0.95);

}  // namespace fastenough::diff
