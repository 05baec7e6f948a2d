// fastenough._core.diff_traces: the trace diff of `fastenough diff`
// (cpp/fastenough/diff/). Paths in, the JSON of the "trace" block out; the
// loading and the matching run without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "fastenough/diff/op_aggregate.h"
#include "fastenough/diff/trace_diff.h"
#include "fastenough/diff/trace_diff_json.h"
#include "fs_path.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
std::string DiffTraces(const std::vector<FsPath>& paths_a, const std::vector<FsPath>& paths_b,
                       double min_rel, double min_abs_ns) {
  StatusOr<std::string> result = [&]() -> StatusOr<std::string> {
    nb::gil_scoped_release release;
    StatusOr<diff::SideAggregate> a = diff::AggregateTraceFiles(NativePaths(paths_a));
    if (!a.ok()) return a.status();
    StatusOr<diff::SideAggregate> b = diff::AggregateTraceFiles(NativePaths(paths_b));
    if (!b.ok()) return b.status();
    return diff::TraceDiffToJson(diff::DiffSides(*a, *b, {min_rel, min_abs_ns}));
  }();
  return ValueOrThrow(std::move(result));
}
}  // namespace

void RegisterDiff(nb::module_& m) {
  m.def("diff_traces", &DiffTraces, nb::arg("paths_a"), nb::arg("paths_b"),
        nb::arg("min_rel") = 0.05, nb::arg("min_abs_ns") = 1000.0,
        "Diff of CPU ops and device activity of two sets of trace files, as JSON text "
        "(the \"trace\" block of fastenough.diff/1).");
}

}  // namespace fastenough::bindings
