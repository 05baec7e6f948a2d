// Trace analysis entry points.
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "fastenough/analysis/shapes.h"
#include "fastenough/annotate/annotated_trace.h"
#include "fastenough/pipeline/analyze.h"
#include "fastenough/report/fields/declared.h"
#include "fastenough/pipeline/merge.h"
#include "fastenough/report/report_json.h"
#include "fastenough/trace/load_trace.h"
#include "frame_roots.h"
#include "fs_path.h"
#include "progress_relay.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
// --device / --peaks (the file's text): a UsageError for a malformed file or an
// unknown device, before any trace is read.
roofline::PeakSettings PeaksFrom(const std::string& device, const std::string& peaks) {
  return ValueOrThrow(roofline::MakePeakSettings(device, peaks));
}

// Runs the analysis without the GIL.
std::string AnalyzeToJson(const std::vector<FsPath>& fs_paths, nb::object progress, int threads,
                          nb::object frame_roots, const std::string& device,
                          const std::string& peaks) {
  const std::vector<std::string> paths = NativePaths(fs_paths);
  pipeline::AnalyzeOptions options;
  options.peaks = PeaksFrom(device, peaks);
  options.threads = threads;
  options.frame_roots = FrameRootsFrom(frame_roots);
  ProgressRelay relay(std::move(progress));
  options.progress = relay.Function();
  StatusOr<std::string> result = [&] {
    nb::gil_scoped_release release;
    return pipeline::AnalyzeTracesToJson(paths, options);
  }();
  return ValueOrThrow(std::move(result));
}

// AnalyzeToJson, and each rank's fastenough.rank-summary/1 document:
// {'report': text, 'summaries': [(rank, text), ...]} in input order.
nb::dict AnalyzeWithSummaries(const std::vector<FsPath>& fs_paths, nb::object progress,
                              int threads, nb::object frame_roots, const std::string& device,
                              const std::string& peaks) {
  const std::vector<std::string> paths = NativePaths(fs_paths);
  pipeline::AnalyzeOptions options;
  options.peaks = PeaksFrom(device, peaks);
  options.threads = threads;
  options.frame_roots = FrameRootsFrom(frame_roots);
  ProgressRelay relay(std::move(progress));
  options.progress = relay.Function();
  StatusOr<pipeline::AnalyzedJob> result = [&] {
    nb::gil_scoped_release release;
    return pipeline::AnalyzeTracesWithSummaries(paths, options);
  }();
  pipeline::AnalyzedJob job = ValueOrThrow(std::move(result));
  nb::list summaries;
  for (auto& s : job.summaries) summaries.append(nb::make_tuple(s.rank, std::move(s.json)));
  nb::dict out;
  out["report"] = std::move(job.report_json);
  out["summaries"] = summaries;
  return out;
}

// One trace's fastenough.rank-summary/1 document: (rank, JSON text).
nb::tuple SummarizeTrace(const FsPath& path, nb::object frame_roots, size_t input_index,
                         const std::string& device, const std::string& peaks) {
  pipeline::AnalyzeOptions options;
  options.peaks = PeaksFrom(device, peaks);
  options.threads = 1;
  options.frame_roots = FrameRootsFrom(frame_roots);
  StatusOr<pipeline::AnalyzedJob::Summary> result = [&] {
    nb::gil_scoped_release release;
    return pipeline::SummarizeTraceToJson(path.native(), options, input_index);
  }();
  pipeline::AnalyzedJob::Summary s = ValueOrThrow(std::move(result));
  return nb::make_tuple(s.rank, std::move(s.json));
}

std::string MergeToJson(const std::vector<FsPath>& fs_paths) {
  const std::vector<std::string> paths = NativePaths(fs_paths);
  StatusOr<std::string> result = [&] {
    nb::gil_scoped_release release;
    return pipeline::MergeRankSummariesToJson(paths);
  }();
  return ValueOrThrow(std::move(result));
}

// out_fd: an open descriptor the caller made for the output (outputs/output_file.py
// decides what it is and renames or removes it); out_name names it in messages.
nb::dict AnnotateToJson(const FsPath& fs_path, int out_fd, const std::string& out_name, bool gzip,
                        nb::object progress, int threads, nb::object frame_roots,
                        const std::string& device, const std::string& peaks) {
  pipeline::AnalyzeOptions options;
  options.peaks = PeaksFrom(device, peaks);
  options.threads = threads;
  options.frame_roots = FrameRootsFrom(frame_roots);
  ProgressRelay relay(std::move(progress));
  options.progress = relay.Function();
  StatusOr<annotate::AnnotatedTrace> result = [&] {
    nb::gil_scoped_release release;
    return annotate::AnnotateTrace(fs_path.native(), out_fd, out_name, gzip, options);
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

// One trace's shape census (analysis/shapes.h) as a JSON array of the report's
// "shapes" rows, written by the report's own writer (report::ShapeRowsToJson),
// for `fastenough replay`: up to top_ops op names, per_op
// shapes each (the report keeps the 10 hottest; replay --op looks further).
std::string ShapeCensusJson(const FsPath& path, size_t top_ops, size_t per_op) {
  StatusOr<std::string> result = [&]() -> StatusOr<std::string> {
    nb::gil_scoped_release release;
    StatusOr<trace::EventStore> store = trace::LoadTrace(path.native());
    if (!store.ok()) return store.status();
    return report::ShapeRowsToJson(analysis::ShapeCensus(*store, top_ops, per_op));
  }();
  return ValueOrThrow(std::move(result));
}

// The annotations an earlier --annotate left in a trace: [(ph, name, ts_ns)].
nb::list TraceAnnotations(const FsPath& path) {
  StatusOr<trace::EventStore> store = [&] {
    nb::gil_scoped_release release;
    return trace::LoadTrace(path.native());
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
        nb::arg("threads") = 0, nb::arg("frame_roots") = nb::none(), nb::arg("device") = "", nb::arg("peaks") = "",
                "Load the traces (one per rank, in parallel), run every analysis and return the "
        "fastenough.report/1 document as JSON text. progress(done_bytes, total_bytes) is "
        "called now and then. device / peaks: --device NAME and the --peaks file's text "
        "(\"\": none), a UsageError when either is refused.");
  m.def("analyze_with_summaries", &AnalyzeWithSummaries, nb::arg("paths"),
        nb::arg("progress") = nb::none(), nb::arg("threads") = 0,
        nb::arg("frame_roots") = nb::none(), nb::arg("device") = "", nb::arg("peaks") = "",
                "analyze_to_json, and each rank's fastenough.rank-summary/1 document: "
        "{'report': JSON text, 'summaries': [(rank, JSON text), ...]} in input order.");
  m.def("shape_census", &ShapeCensusJson, nb::arg("path"), nb::arg("top_ops") = 10,
        nb::arg("per_op") = 5,
        "One trace's shape census as JSON text: the report's `shapes` rows (op, input "
        "dims / types / strides / concrete inputs, count, total_ns, device_ns) of its "
        "top_ops hottest op names, per_op shapes each.");
  m.def("summarize_trace", &SummarizeTrace, nb::arg("path"), nb::arg("frame_roots") = nb::none(),
        nb::arg("input_index") = 0, nb::arg("device") = "", nb::arg("peaks") = "",
                "One trace's fastenough.rank-summary/1 document as (rank, JSON text): the summary "
        "analyze_with_summaries gives for that trace alone, as input number input_index of "
        "the job (`run --analyze-in-job`, `analyze --dask`).");
  m.def("merge_to_json", &MergeToJson, nb::arg("paths"),
        "The fastenough.report/1 JSON text of the job whose fastenough.rank-summary/1 files "
        "are given (gzip or not), in that order: the report analyze gives for their traces.");
  m.def("annotate_to_json", &AnnotateToJson, nb::arg("path"), nb::arg("out_fd"),
        nb::arg("out_name"), nb::arg("gzip"), nb::arg("progress") = nb::none(),
        nb::arg("threads") = 0, nb::arg("frame_roots") = nb::none(), nb::arg("device") = "", nb::arg("peaks") = "",
        "Analyse one trace and write it to the open descriptor out_fd (gzip when gzip) "
        "with the findings added as slices, instant events and flow arrows; the descriptor "
        "stays open. Returns {'report': fastenough.report/1 JSON text, 'counts': {...}}.");
  m.def(
      "check_peaks",
      [](const std::string& device, const std::string& peaks) {
        const roofline::PeakSettings s = PeaksFrom(device, peaks);
        return s.device ? s.device->peaks.name : std::string();
      },
      nb::arg("device") = "", nb::arg("peaks") = "",
      "Checks --device NAME and the --peaks file's text as analyze_to_json would (a "
      "UsageError with the reason when refused); the peak table's name of the device, or "
      "\"\" when none is named.");
  m.def("trace_annotations", &TraceAnnotations, nb::arg("path"),
        "The fastenough annotation events of a trace as (ph, name, ts_ns) tuples.");
  m.def(
      "describe_fields",
      [](const std::string& document) {
        return ValueOrThrow(report::fields::DescribeFieldsJson(document));
      },
      nb::arg("document"),
      "The declared keys of a document (\"report\": the parts declared so far; "
      "\"rank-summary\": all of it) as JSON text: [{path, type, unit, nullable, kind, "
      "meaning}] (cpp/fastenough/report/fields/), for the JSON Schema, the schema doc's "
      "tables and a typed model to be generated from.");
}

}  // namespace fastenough::bindings
