// Run-directory analysis for `fastenough run` (and re-analysis of a run dir).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "fastenough/rundir/run_report.h"
#include "frame_roots.h"
#include "fs_path.h"
#include "progress_relay.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {

// run_details.in_job as supervisor/in_job.py decides it (a dict of plain values).
rundir::InJobChoice InJobFrom(const nb::dict& d) {
  rundir::InJobChoice c;
  c.used = nb::cast<bool>(d["used"]);
  c.ranks = nb::cast<std::vector<int64_t>>(d["ranks"]);
  c.missing_ranks = nb::cast<std::vector<int64_t>>(d["missing_ranks"]);
  for (auto [k, v] : nb::cast<nb::dict>(d["why_missing"])) {
    c.why_missing.emplace_back(nb::cast<std::string>(k), nb::cast<std::string>(v));
  }
  if (d.contains("note")) c.note = nb::cast<std::string>(d["note"]);
  return c;
}

}  // namespace

void RegisterRundir(nb::module_& m) {
  m.def(
      "analyze_run_dir",
      [](const FsPath& dir, int threads, nb::object progress, nb::object frame_roots,
         const std::vector<FsPath>& rank_summaries, std::optional<nb::dict> in_job,
         std::optional<std::tuple<std::optional<int>, std::optional<int>, int64_t>> ended,
         bool cross_reference_lint,
         const std::vector<std::tuple<std::optional<int64_t>, FsPath, std::optional<std::string>>>&
             earlier_runs) {
        rundir::RunReportOptions o;
        for (const auto& [id, run_dir, started_at] : earlier_runs) {
          o.earlier_runs.push_back({id, run_dir.native(), started_at});
        }
        o.cross_reference_lint = cross_reference_lint;
        o.rank_summaries = NativePaths(rank_summaries);
        if (in_job) o.in_job = InJobFrom(*in_job);
        if (ended) {
          const auto& [exit_status, signal, wall_ns] = *ended;
          o.ended = rundir::RunEnd{exit_status.value_or(-1), signal.value_or(0), wall_ns};
        }
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
      nb::arg("in_job") = nb::none(), nb::arg("ended") = nb::none(),
      nb::arg("cross_reference_lint") = false,
      nb::arg("earlier_runs") = std::vector<
          std::tuple<std::optional<int64_t>, FsPath, std::optional<std::string>>>{},
      "Analyse everything present in a run directory (traces, phases, steps, samples, meta) "
      "and return the fastenough.report/1 document as JSON text. progress(done, total) is "
      "called now and then while the traces load (thousandths of a trace file). "
      "rank_summaries: fastenough.rank-summary/1 files the ranks wrote (run "
      "--analyze-in-job), merged instead of reading the traces. in_job: what run "
      "--analyze-in-job chose ({used, ranks, missing_ranks, why_missing, note?}), written "
      "as run_details.in_job. ended: (exit_status, signal, wall_ns) of the program, when "
      "meta.json could not be rewritten at its end. cross_reference_lint: "
      "lint the program's files and mark the findings the source shows too (\"lint\"). "
      "earlier_runs: (id, run_dir, started_at) of earlier runs of the same command, newest "
      "first: their findings are compared with these (\"repeatability\").");
}

}  // namespace fastenough::bindings
