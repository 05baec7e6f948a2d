// The report of a `fastenough run`: everything present in the run directory
// analysed into one report::Report (trace analyses of trace/*.json[.gz], the
// phase table, steady throughput, sampler findings, and the run's own blocks:
// report.measurement, run_details, lint, repeatability, report/run_blocks.h).
// A part that cannot be read (a truncated trace, a cut-off line) is named in
// `problems`, never fatal.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/analysis/frame_kinds.h"
#include "fastenough/report/report.h"
#include "fastenough/rundir/agent_records.h"
#include "fastenough/rundir/lint_cross_reference.h"
#include "fastenough/rundir/measurement.h"
#include "fastenough/rundir/phase_table.h"
#include "fastenough/rundir/repeatability.h"
#include "fastenough/rundir/step_summary.h"
#include "fastenough/util/status.h"

namespace fastenough::rundir {

// What `run --analyze-in-job` found before the analysis (supervisor/in_job.py
// reads the ranks' manifest): the report's run_details.in_job.
using InJobChoice = report::InJobChoice;  // report/run_blocks.h
// How the program ended, when meta.json could not be written at its end: the
// report's run block takes these instead of meta.json's (those of the start).
struct RunEnd {
  int exit_status = -1;
  int signal = 0;
  int64_t wall_ns = -1;
};

struct RunReportOptions {
  int threads = 0;  // trace loading threads; 0: automatic
  // Progress of the trace loads, the long part: (done, total) in thousandths
  // of a trace file, total = 1000 x the number of trace files. Called from the
  // calling thread; the last call is (total, total). Not called without traces.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Sampler findings: memory-near-limit above this share of device memory,
  // memory-headroom (a batch sweep candidate) below the second one.
  double near_limit_share = 0.95;
  double headroom_share = 0.40;
  // The roots to classify the traces' Python frames by, when the agent's
  // records do not carry the program's own (older run directories).
  analysis::FrameRoots frame_roots;
  // fastenough.rank-summary/1 files the ranks wrote at exit (`run
  // --analyze-in-job`): the trace part of the report is merged from them, in
  // the order of the traces they were taken from, and trace/ is not read.
  // When one cannot be read, that is a problem and the traces are analysed.
  std::vector<std::string> rank_summaries;
  // run --analyze-in-job: written as run_details.in_job. When the summaries
  // were to be merged but could not be read, the report says it was made
  // from the traces.
  std::optional<InJobChoice> in_job;
  std::optional<RunEnd> ended;
  // Lint the program's files the findings and the command name (meta.json's
  // command, run in its cwd) and say which findings the source shows too: the
  // report's "lint" and the findings' also_in_source (lint_cross_reference.h).
  bool cross_reference_lint = false;
  // Earlier runs of the same command (newest first, from the history): the
  // report's "repeatability" compares their findings with these (repeatability.h).
  std::vector<EarlierRun> earlier_runs;
};

struct RunReport {
  report::Report report;
  std::vector<PhaseRow> phases;      // with the details report::PhaseRow lacks
  std::vector<StepSummary> steps;    // per rank and mode
  std::vector<StepRecord> step_records;  // steps.jsonl as read
  std::string headline_mode;         // the mode report.steps describes
  std::optional<double> real_token_share;  // real tokens / padded positions (checks)
  std::vector<AgentRecord> agents;
  std::vector<std::string> problems;
  std::vector<std::string> traces;   // trace files analysed (or summarised, see above)
  std::optional<InJobChoice> in_job;  // as written in run_details.in_job
};

// NotFound when `dir` is not a directory; otherwise always a report.
StatusOr<RunReport> AnalyzeRunDir(const std::string& dir, const RunReportOptions& options = {});

// AnalyzeRunDir + ReportToJson: the report's one writer writes the run's blocks
// from their declarations (report/fields/run_fields.h; docs/report-schema.md):
//   "measurement": what the run saw and what it did not (measurement.h)
//   "run_details": {phases, steps_per_rank, steps_by_mode, traces, problems, in_job?}
//   "lint" (cross_reference_lint) and "repeatability" (earlier_runs), when asked for.
// report.steps describes the headline mode (the one with the most steady time);
// steps_per_s is rank 0's (ranks step together), items and tokens per second
// are summed over ranks.
StatusOr<std::string> AnalyzeRunDirToJson(const std::string& dir,
                                          const RunReportOptions& options = {});

}  // namespace fastenough::rundir
