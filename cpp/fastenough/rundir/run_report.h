// The report of a `fastenough run`: everything present in the run directory
// analysed into one report::Report (trace analyses of trace/*.json[.gz], the
// phase table, steady throughput, sampler findings) plus the run details that
// the Report model has no field for. A part that cannot be read (a truncated
// trace, a cut-off line) is named in `problems`, never fatal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fastenough/report/report.h"
#include "fastenough/rundir/phase_table.h"
#include "fastenough/rundir/step_summary.h"
#include "fastenough/util/status.h"

namespace fastenough::rundir {

struct RunReportOptions {
  int threads = 0;  // trace loading threads; 0: automatic
  // Sampler findings: memory-near-limit above this share of device memory,
  // memory-headroom (a batch sweep candidate) below the second one.
  double near_limit_share = 0.95;
  double headroom_share = 0.40;
};

struct RunReport {
  report::Report report;
  std::vector<PhaseRow> phases;      // with the details report::PhaseRow lacks
  std::vector<StepSummary> steps;    // per rank
  std::vector<std::string> problems;
  std::vector<std::string> traces;   // trace files analysed
};

// NotFound when `dir` is not a directory; otherwise always a report.
StatusOr<RunReport> AnalyzeRunDir(const std::string& dir, const RunReportOptions& options = {});

// AnalyzeRunDir + ReportToJson, with one more top-level key:
//   "run_details": {"phases": [{name, rank, pid, auto, complete, busy_source,
//                               cpu_mean_pct, rss_max, mem_total, device_samples}],
//                   "steps_per_rank": [{rank, steps, steady_count, median_ns, p10_ns,
//                                       p90_ns, span_ns, steps_per_s, items_per_s,
//                                       tokens_per_s, source}],
//                   "traces": [path...], "problems": [text...]}
StatusOr<std::string> AnalyzeRunDirToJson(const std::string& dir,
                                          const RunReportOptions& options = {});

}  // namespace fastenough::rundir
