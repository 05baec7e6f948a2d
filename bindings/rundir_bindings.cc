// Run-directory analysis for `fastenough run` (and re-analysis of a run dir).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "fastenough/rundir/run_report.h"
#include "frame_roots.h"
#include "fs_path.h"
#include "progress_relay.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterRundir(nb::module_& m) {
  m.def(
      "analyze_run_dir",
      [](const FsPath& dir, int threads, nb::object progress, nb::object frame_roots,
         const std::vector<FsPath>& rank_summaries) {
        rundir::RunReportOptions o;
        o.rank_summaries = NativePaths(rank_summaries);
        o.threads = threads;
        o.frame_roots = FrameRootsFrom(frame_roots);
        ProgressRelay relay(std::move(progress));
        o.progress = relay.Function();
        StatusOr<std::string> r = [&] {
          nb::gil_scoped_release release;
          return rundir::AnalyzeRunDirToJson(dir.native(), o);
        }();
        return ValueOrThrow(std::move(r));
      },
      nb::arg("run_dir"), nb::arg("threads") = 0, nb::arg("progress") = nb::none(),
      nb::arg("frame_roots") = nb::none(), nb::arg("rank_summaries") = std::vector<FsPath>{},
      "Analyse everything present in a run directory (traces, phases, steps, samples, meta) "
      "and return the fastenough.report/1 document as JSON text. progress(done, total) is "
      "called now and then while the traces load (thousandths of a trace file). "
      "rank_summaries: fastenough.rank-summary/1 files the ranks wrote (run "
      "--analyze-in-job), merged instead of reading the traces.");
}

}  // namespace fastenough::bindings
