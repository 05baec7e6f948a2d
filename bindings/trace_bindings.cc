// Trace analysis entry points.
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <mutex>

#include "fastenough/annotate/annotated_trace.h"
#include "fastenough/report/analyze.h"
#include "fastenough/report/report_json.h"
#include "fastenough/trace/load_trace.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
// Relays progress from worker threads into Python, at most ~10 times a
// second (and always the final call).
class ProgressRelay {
 public:
  explicit ProgressRelay(nb::object callback) : callback_(std::move(callback)) {}
  void Install(report::AnalyzeOptions& options) {
    if (callback_.is_none()) return;
    options.progress = [this](uint64_t done, uint64_t total) { Call(done, total); };
  }

 private:
  void Call(uint64_t done, uint64_t total) {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    nb::gil_scoped_acquire gil;
    try {
      callback_(done, total);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("fastenough progress callback");
    }
  }
  nb::object callback_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now() - std::chrono::seconds(1);
};

// Runs the analysis without the GIL.
std::string AnalyzeToJson(const std::vector<std::string>& paths, nb::object progress, int threads) {
  report::AnalyzeOptions options;
  options.threads = threads;
  ProgressRelay relay(std::move(progress));
  relay.Install(options);
  StatusOr<std::string> result = [&] {
    nb::gil_scoped_release release;
    return report::AnalyzeTracesToJson(paths, options);
  }();
  return ValueOrThrow(std::move(result));
}

nb::dict AnnotateToJson(const std::string& path, const std::string& out_path, nb::object progress,
                        int threads) {
  report::AnalyzeOptions options;
  options.threads = threads;
  ProgressRelay relay(std::move(progress));
  relay.Install(options);
  StatusOr<annotate::AnnotatedTrace> result = [&] {
    nb::gil_scoped_release release;
    return annotate::AnnotateTrace(path, out_path, options);
  }();
  annotate::AnnotatedTrace a = ValueOrThrow(std::move(result));
  nb::dict counts;
  counts["findings"] = a.counts.findings;
  counts["slices"] = a.counts.slices;
  counts["instants"] = a.counts.instants;
  counts["flows"] = a.counts.flows;
  counts["events"] = a.counts.events;
  nb::dict out;
  out["report"] = report::ReportToJson(a.report);
  out["counts"] = counts;
  return out;
}

// The annotations an earlier --annotate left in a trace: [(ph, name, ts_ns)].
nb::list TraceAnnotations(const std::string& path) {
  StatusOr<trace::EventStore> store = [&] {
    nb::gil_scoped_release release;
    return trace::LoadTrace(path);
  }();
  trace::EventStore s = ValueOrThrow(std::move(store));
  nb::list out;
  for (const auto& a : s.annotations) {
    out.append(nb::make_tuple(std::string(1, a.ph), a.name, a.ts_ns));
  }
  return out;
}
}  // namespace

void RegisterTrace(nb::module_& m) {
  m.def("analyze_to_json", &AnalyzeToJson, nb::arg("paths"), nb::arg("progress") = nb::none(),
        nb::arg("threads") = 0,
        "Load the traces (one per rank, in parallel), run every analysis and return the "
        "fastenough.report/1 document as JSON text. progress(done_bytes, total_bytes) is "
        "called now and then.");
  m.def("annotate_to_json", &AnnotateToJson, nb::arg("path"), nb::arg("out_path"),
        nb::arg("progress") = nb::none(), nb::arg("threads") = 0,
        "Analyse one trace and write it to out_path (gzip when it ends in .gz) with the "
        "findings added as slices, instant events and flow arrows. Returns "
        "{'report': fastenough.report/1 JSON text, 'counts': {...}}.");
  m.def("trace_annotations", &TraceAnnotations, nb::arg("path"),
        "The fastenough annotation events of a trace as (ph, name, ts_ns) tuples.");
}

}  // namespace fastenough::bindings
