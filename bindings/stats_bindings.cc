// Statistics for `fastenough ab`: the paired bootstrap lives in the core
// (cpp/fastenough/stats/); Python only passes the per-pair throughputs.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <vector>

#include "fastenough/analysis/statistics.h"
#include "fastenough/stats/paired_bootstrap.h"
#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterStats(nb::module_& m) {
  m.def(
      "paired_ratio_of_medians",
      [](const std::vector<double>& a, const std::vector<double>& b, uint64_t seed,
         int64_t resamples, double confidence) {
        const auto r = stats::PairedRatioOfMedians(a, b, seed, resamples, confidence);
        nb::dict d;
        d["pairs"] = r.pairs;
        d["ratio"] = r.ratio;
        d["low"] = r.low;
        d["high"] = r.high;
        d["confidence"] = r.confidence;
        d["resamples"] = r.resamples;
        d["seed"] = r.seed;
        return d;
      },
      nb::arg("a"), nb::arg("b"), nb::arg("seed") = 0, nb::arg("resamples") = 10000,
      nb::arg("confidence") = 0.95,
      "Median(b)/Median(a) with a paired percentile-bootstrap interval (NaN when undefined).");
  m.def(
      "median",
      [](std::vector<double> v) { return analysis::Percentile(v, 0.5); }, nb::arg("values"),
      "Median with linear interpolation; NaN for no values.");
}

}  // namespace fastenough::bindings
