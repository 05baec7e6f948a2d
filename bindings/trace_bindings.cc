// Trace analysis entry points.
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <mutex>

#include "fastenough/report/analyze.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
// Runs the analysis without the GIL; progress calls back into Python at most
// ~10 times a second, from whichever worker thread reports.
std::string AnalyzeToJson(const std::vector<std::string>& paths, nb::object progress, int threads) {
  report::AnalyzeOptions options;
  options.threads = threads;
  std::mutex mu;
  auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  if (!progress.is_none()) {
    options.progress = [&](uint64_t done, uint64_t total) {
      std::lock_guard<std::mutex> lock(mu);
      auto now = std::chrono::steady_clock::now();
      if (done < total && now - last < std::chrono::milliseconds(100)) return;
      last = now;
      nb::gil_scoped_acquire gil;
      try {
        progress(done, total);
      } catch (nb::python_error& e) {
        e.discard_as_unraisable("fastenough progress callback");
      }
    };
  }
  StatusOr<std::string> result = [&] {
    nb::gil_scoped_release release;
    return report::AnalyzeTracesToJson(paths, options);
  }();
  return ValueOrThrow(std::move(result));
}
}  // namespace

void RegisterTrace(nb::module_& m) {
  m.def("analyze_to_json", &AnalyzeToJson, nb::arg("paths"), nb::arg("progress") = nb::none(),
        nb::arg("threads") = 0,
        "Load the traces (one per rank, in parallel), run every analysis and return the "
        "fastenough.report/1 document as JSON text. progress(done_bytes, total_bytes) is "
        "called now and then.");
}

}  // namespace fastenough::bindings
