// The project's one quantile (every median, percentile and quartile the core
// reports or decides by comes from here).
//
// Definition: linear interpolation between closest ranks, numpy's default
// method ("linear", type 7 of Hyndman & Fan 1996). With the n values sorted
// as x[0..n-1] and h = (n - 1) * p:
//   Q(p) = x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
// It is the definition every caller already used (analysis/statistics.cc,
// rundir/step_summary.cc and stats/robust_summary.cc all called one copy of
// it); the nearest-rank medians it replaced (the upper middle value for an
// even n, in analysis/collective_matching.cc and tools/analyze_stages_main.cc)
// differ only for an even n.
//
// Edge cases (the google/benchmark rule: documented, tested):
//   n = 0: NaN (absent; the JSON writer prints null). QuantileNs: 0.
//   n = 1: that value, for every p.
//   n = 2: x0 + p * (x1 - x0); the median is the mean of the two.
//   ties:  equal values interpolate to themselves (1, 2, 2, 2, 9 -> median 2).
//   p:     clamped to [0, 1] (p = 0 is the minimum, p = 1 the maximum);
//          a NaN p gives NaN.
//   NaN values (doubles): dropped before sorting, an absent value, not a
//          value (std::sort with NaN is undefined behaviour).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fastenough::stats {

// Values already sorted ascending (and free of NaN).
double QuantileSorted(std::span<const int64_t> sorted, double p);
double QuantileSorted(std::span<const double> sorted, double p);

// Any order: sorts its own copy (pass an rvalue to reuse the caller's buffer).
double Quantile(std::vector<int64_t> values, double p);
double Quantile(std::vector<double> values, double p);

double Median(std::vector<int64_t> values);
double Median(std::vector<double> values);

// Quantile of integer nanoseconds, rounded to the nearest whole ns (half away
// from zero); 0 for no values (a count of steps says whether there were any).
int64_t QuantileNs(std::vector<int64_t> values, double p);

}  // namespace fastenough::stats
