// Paired bootstrap of a ratio of medians, for `fastenough ab`.
//
// The A B B A schedule yields n pairs (a[i], b[i]) measured close together in
// time; resampling whole pairs (not a and b separately) keeps the slow drift
// of the machine (thermal, other tenants) out of the interval.
//
// Estimate: Median(b) / Median(a). Interval: percentile bootstrap, `resamples`
// draws of n pair indices with replacement from a std::mt19937_64 seeded with
// `seed` (index = draw % n: mt19937_64 is specified bit-for-bit by the standard,
// std::uniform_int_distribution is not, so this is reproducible everywhere).
// Medians and the quantiles of the bootstrap ratios are analysis::Percentile
// (linear interpolation, numpy's "linear").
// Edge cases:
//   n = 0 (or a.size() != b.size()): everything NaN.
//   n = 1: ratio = b0 / a0; interval NaN (one pair shows no spread).
//   n = 2: bootstrap over the 4 equally likely resamples of two pairs.
//   Any median of a equal to 0 in a resample: that resample is skipped; if all
//   are skipped the interval is NaN.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace fastenough::stats {

struct RatioInterval {
  int64_t pairs = 0;
  double ratio = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  double confidence = 0.95;
  int64_t resamples = 0;  // resamples that counted (median of a non-zero)
  uint64_t seed = 0;
};

RatioInterval PairedRatioOfMedians(const std::vector<double>& a,
                                   const std::vector<double>& b,
                                   uint64_t seed = 0, int64_t resamples = 10000,
                                   double confidence = 0.95);

}  // namespace fastenough::stats
