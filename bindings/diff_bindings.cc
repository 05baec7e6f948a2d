// fastenough._core.diff_traces: the trace diff of `fastenough diff`
// (cpp/fastenough/diff/). Paths in, the JSON of the "trace" block out; the
// loading and the matching run without the GIL. regression_gate: the
// statistic and verdict of `fastenough diff --max-regression`.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>

#include <string>
#include <vector>

#include "fastenough/diff/op_aggregate.h"
#include "fastenough/diff/regression_gate.h"
#include "fastenough/diff/trace_diff.h"
#include "fastenough/diff/trace_diff_json.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fs_path.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
std::string DiffTraces(const std::vector<FsPath>& paths_a, const std::vector<FsPath>& paths_b,
                       double min_rel, double min_abs_ns, double items_per_step_a,
                       double items_per_step_b, const std::string& device,
                       const std::string& peaks) {
  // --device / --peaks (the file's text): a UsageError before any trace is read.
  const roofline::PeakSettings settings = ValueOrThrow(roofline::MakePeakSettings(device, peaks));
  StatusOr<std::string> result = [&]() -> StatusOr<std::string> {
    nb::gil_scoped_release release;
    StatusOr<diff::SideAggregate> a = diff::AggregateTraceFiles(NativePaths(paths_a), settings);
    if (!a.ok()) return a.status();
    StatusOr<diff::SideAggregate> b = diff::AggregateTraceFiles(NativePaths(paths_b), settings);
    if (!b.ok()) return b.status();
    const diff::DiffOptions o{min_rel, min_abs_ns, items_per_step_a, items_per_step_b};
    return diff::TraceDiffToJson(diff::DiffSides(*a, *b, o));
  }();
  return ValueOrThrow(std::move(result));
}

// A side from Python: {"durations_ns": [...], "items": [...]} (the steps), or
// {"median_ns", "p10_ns", "p90_ns", "count", "items_per_step"} (a summary).
diff::GateSideInput SideFrom(nb::dict d) {
  diff::GateSideInput s;
  auto number = [&](const char* key, double fallback) {
    return d.contains(key) && !d[key].is_none() ? nb::cast<double>(d[key]) : fallback;
  };
  if (d.contains("durations_ns")) s.durations_ns = nb::cast<std::vector<double>>(d["durations_ns"]);
  if (d.contains("items") && !d["items"].is_none()) s.items = nb::cast<std::vector<double>>(d["items"]);
  s.median_ns = number("median_ns", s.median_ns);
  s.p10_ns = number("p10_ns", s.p10_ns);
  s.p90_ns = number("p90_ns", s.p90_ns);
  s.count = static_cast<int64_t>(number("count", 0));
  s.items_per_step = number("items_per_step", 0);
  return s;
}

nb::object OrNone(double v) { return std::isfinite(v) ? nb::cast(v) : nb::none(); }

nb::dict EstimateDict(const stats::LogMedianEstimate& e) {
  nb::dict d;
  d["count"] = e.count;
  d["median_ns"] = OrNone(e.median);
  d["log_se"] = OrNone(e.log_se);
  return d;
}

nb::dict RegressionGate(nb::dict a, nb::dict b, double max_regression,
                        double confidence) {
  const stats::LogMedianEstimate ea = diff::EstimateSide(SideFrom(a));
  const stats::LogMedianEstimate eb = diff::EstimateSide(SideFrom(b));
  const diff::GateResult g = diff::DecideRegression(ea, eb, max_regression, confidence);
  nb::dict d;
  d["status"] = diff::GateStatusName(g.status);
  d["reason"] = g.reason.empty() ? nb::none() : nb::cast(g.reason);
  d["a"] = EstimateDict(ea);
  d["b"] = EstimateDict(eb);
  d["ratio"] = OrNone(g.ratio.ratio);
  d["low"] = OrNone(g.ratio.low);
  d["high"] = OrNone(g.ratio.high);
  d["confidence"] = g.ratio.confidence;
  d["slowdown"] = OrNone(g.slowdown);
  d["slowdown_low"] = OrNone(g.slowdown_low);
  d["slowdown_high"] = OrNone(g.slowdown_high);
  d["min_steps"] = diff::kMinGateSteps;
  return d;
}
}  // namespace

void RegisterDiff(nb::module_& m) {
  m.def("diff_traces", &DiffTraces, nb::arg("paths_a"), nb::arg("paths_b"),
        nb::arg("min_rel") = 0.05, nb::arg("min_abs_ns") = 1000.0,
        nb::arg("items_per_step_a") = 0.0, nb::arg("items_per_step_b") = 0.0,
        nb::arg("device") = "", nb::arg("peaks") = "",
        "Diff of CPU ops and device activity of two sets of trace files, as JSON text "
        "(the \"trace\" block of fastenough.diff/1). Items per step of both sides (> 0) "
        "judge the rows per item. device / peaks: --device NAME and the --peaks file's "
        "text for the roofline rows (\"\": none).");
  m.def("regression_gate", &RegressionGate, nb::arg("a"), nb::arg("b"), nb::arg("max_regression"),
        nb::arg("confidence") = 0.95,
        "The regression gate of two sides: the ratio of their median times per unit (B / A) "
        "with its interval and the verdict \"ok\", \"regression\" (the interval's lower "
        "end of the slowdown exceeds max_regression) or \"not-comparable\" (too few steps).");
}

}  // namespace fastenough::bindings
