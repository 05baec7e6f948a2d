// Statistics for `fastenough ab` and the measurement API (fastenough.time,
// sweep_batch, abba): they live in the core (cpp/fastenough/stats/); Python
// only passes the measured values.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "fastenough/stats/knee.h"
#include "fastenough/stats/paired_ratio.h"
#include "fastenough/stats/quantile.h"
#include "fastenough/stats/robust_summary.h"
#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterStats(nb::module_& m) {
  m.def(
      "paired_ratio",
      [](const std::vector<double>& a, const std::vector<double>& b, double confidence) {
        const auto r = stats::PairedLogRatio(a, b, confidence);
        nb::dict d;
        d["pairs"] = r.pairs;
        d["ratio"] = r.ratio;
        d["low"] = r.low;
        d["high"] = r.high;
        d["confidence"] = r.confidence;
        d["method"] = "t interval of the paired log ratios";
        return d;
      },
      nb::arg("a"), nb::arg("b"), nb::arg("confidence") = 0.95,
      "b/a as the geometric mean of the paired ratios b[i]/a[i], with a Student-t interval "
      "on their logs (NaN when undefined; pairs with a value <= 0 or not finite are "
      "left out).");
  m.def(
      "median",
      [](std::vector<double> v) { return stats::Median(std::move(v)); }, nb::arg("values"),
      "Median with linear interpolation (stats/quantile.h); NaN for no values, NaN inputs "
      "dropped.");
  m.def(
      "summarize",
      [](const std::vector<double>& values) {
        const auto s = stats::SummarizeRobust(values);
        nb::dict d;
        d["count"] = s.count;
        d["median"] = s.median;
        d["q1"] = s.q1;
        d["q3"] = s.q3;
        d["iqr"] = s.iqr;
        d["mad"] = s.mad;
        d["min"] = s.min;
        d["max"] = s.max;
        return d;
      },
      nb::arg("values"),
      "count, median, q1, q3, iqr, mad, min, max (NaN for no values; NaN inputs dropped).");
  m.def(
      "quantile", [](std::vector<double> v, double p) { return stats::Quantile(std::move(v), p); },
      nb::arg("values"), nb::arg("p"),
      "The p-quantile with linear interpolation (stats/quantile.h; p clamped to [0, 1]); NaN "
      "for no values, NaN inputs dropped.");
  m.def("rounds_agree", &stats::RoundsAgree, nb::arg("previous"), nb::arg("current"),
        nb::arg("tolerance"),
        "True when the larger of two rounds is within `tolerance` of the smaller.");
  m.def("knee_index", &stats::KneeIndex, nb::arg("throughputs"), nb::arg("within") = 0.05,
        "Smallest index whose throughput is >= (1 - within) * best; -1 when none is usable.");
}

}  // namespace fastenough::bindings
