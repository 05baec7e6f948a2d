// The blocks `fastenough run` adds to the report (issue 35 item 2, one
// writer): typed values the run-directory analysis (rundir/) fills and the
// report's writer writes like any other declared key (fields/run_fields.h):
// "measurement", "run_details", "lint" and "repeatability". report.h holds
// them as optional members of Report; a trace's report has none.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/lint/lint_finding.h"

namespace fastenough::report {

inline constexpr double kSweepAbsent = std::numeric_limits<double>::quiet_NaN();

// What the run's measurement saw, and what it did not (rundir/measurement.h
// decides it): a report of a run the agent never saw must say so first.
struct MeasurementReason {
  std::string code;   // no-agent | no-torch | torch-unseen | agent-off | checks-stopped |
                      // checks-missing | no-steps | few-steady-steps | steps-drift |
                      // no-trace | trace-data-lost
  std::string level;  // blind: nothing of that kind was measured; partial: some was
  std::string text;
};

struct Measurement {
  std::string status = "complete";
  std::vector<MeasurementReason> reasons;
  int processes = 0;  // processes in the loop (main or rank) the agent saw
  int64_t steady_steps = 0;
  int64_t tool_pause_ns = 0, tool_pauses = 0, profile_cost_ns = 0;
  // The agent's own memory: the most its profiler window raised a process's peak RSS.
  int64_t profile_peak_rss_rise = 0;
  // The agent's memory bound for that process (+5% or +64 MiB); a rise above it
  // is said in the report (torch's profiler grows when it stops, after the
  // window's last check).
  int64_t profile_memory_bound = 0;
  std::string profile_stopped_early;  // the first process's reason, when its window ended early
  std::string profile_mode;   // the mode of the steps the window profiled
  std::string profile_moved;  // why the window ran again on other steps (agent/window_plan.py)
  std::string profile_not_moved;  // why it did not run again there (the memory bound)
};

// run_details: what the run directory held, per phase, rank and mode.
struct RunPhaseDetail {
  std::string name;
  int rank = 0;
  int64_t pid = 0;
  int64_t instances = 1;  // phase instances the row stands for
  std::string mode;       // "" (older agents): null
  bool automatic = false;
  bool complete = true;
  std::string busy_source;  // "trace" | "util" | "" (null)
  double cpu_mean_pct = std::numeric_limits<double>::quiet_NaN();
  int64_t rss_max = -1, mem_total = -1;  // -1: null
  int device_samples = 0;
};

struct RunStepsOfRank {
  int rank = 0;
  std::string mode;
  int64_t steps = 0;         // every step of the rank and mode
  int64_t steady_count = 0;  // the figures below only when > 0
  int64_t median_ns = 0, p10_ns = 0, p90_ns = 0, span_ns = 0, steady_ns = 0;
  double steps_per_s = std::numeric_limits<double>::quiet_NaN();
  double items_per_s = std::numeric_limits<double>::quiet_NaN();
  double tokens_per_s = std::numeric_limits<double>::quiet_NaN();
  std::string source;
};

struct RunStepsOfMode {
  std::string mode;
  int ranks = 0;
  int64_t steady_count = 0;
  double median_ns = std::numeric_limits<double>::quiet_NaN();
  double p10_ns = std::numeric_limits<double>::quiet_NaN();
  double p90_ns = std::numeric_limits<double>::quiet_NaN();
  double steps_per_s = std::numeric_limits<double>::quiet_NaN();
  double items_per_s = std::numeric_limits<double>::quiet_NaN();
  double tokens_per_s = std::numeric_limits<double>::quiet_NaN();
  double real_tokens_per_s = std::numeric_limits<double>::quiet_NaN();
};

// What `run --analyze-in-job` chose (supervisor/in_job.py decides it and
// rundir reads the ranks' manifest): the report's run_details.in_job.
struct InJobChoice {
  bool used = false;  // every trace has a summary: they are merged
  std::vector<int64_t> ranks;          // the ranks that sent one
  std::vector<int64_t> missing_ranks;  // the ranks that did not
  // Why each one is missing, by rank (or trace name), in the manifest's order.
  std::vector<std::pair<std::string, std::string>> why_missing;
  std::string note;  // why the traces were read instead; "" when used
};

struct RunDetails {
  std::vector<RunPhaseDetail> phases;  // as report.phases lists them
  std::vector<RunStepsOfRank> steps_per_rank;
  std::vector<RunStepsOfMode> steps_by_mode;
  std::vector<std::string> traces;
  std::vector<std::string> problems;
  std::optional<InJobChoice> in_job;
};

// repeatability (rundir/repeatability.h): this run's findings beside the
// earlier runs' of the same command.
struct EarlierRun {
  std::optional<int64_t> id;
  std::string run_dir;
  std::optional<std::string> started_at;
};

struct Spread {
  double min = 0, max = 0;
  int runs = 0;
};

struct RepeatedFinding {
  std::string code;
  int rank = -1;  // -1: not a rank's
  std::string verdict;  // this run's, or the newest run's that had it
  std::optional<Spread> per_step_ns, share_of_step;  // stable ones
  int runs = 0;              // varied ones: in how many runs
  bool in_this_run = false;  // varied ones
};

struct Repeatability {
  int runs = 0;
  std::vector<EarlierRun> earlier;
  std::vector<RepeatedFinding> stable, varied;
};

// lint (rundir/lint_cross_reference.h): what linting the program's files found
// that no runtime finding confirmed.
struct LintCrossReference {
  std::vector<std::string> files;  // linted, resolved, sorted
  int confirmed = 0;               // lint findings that a runtime finding matched
  std::vector<lint::LintFinding> unconfirmed;
  std::vector<lint::FileError> errors;
};

// What fastenough.sweep_batch measured in the workload (sweep_batch.json of
// the run directory, python/fastenough/measure/sweep.py writes it): the
// report's meta.batch_sweep, declared in fields/rank_fields.h.
struct BatchSweepPoint {
  int64_t size = 0;
  std::string status;  // "ok", or why the size did not run ("out of memory (...)")
  // Only when status is "ok" (the size ran):
  std::vector<double> round_s;   // each timed round's seconds
  int64_t calls_per_round = 1;   // the step repeated in a round (older files: 1)
  double median_s = kSweepAbsent;     // seconds per step, median over the rounds
  int64_t items = 0;
  double items_per_s = kSweepAbsent;  // NaN: null
  int64_t tokens = -1;                // -1: null (no token count)
  double tokens_per_s = kSweepAbsent;
  int64_t peak_bytes = -1;            // -1: null (not measured, the cpu)
};

struct BatchSweep {
  std::vector<BatchSweepPoint> points;  // one per size tried, in size order
  int64_t knee = -1;  // the smallest size within `within` of the best; -1: null
  int64_t best = -1;  // the size of the most items/s; -1: null
  double within = 0;
  std::string device;
  bool protocol_change = false;
  std::vector<std::string> semantics;  // why batching may change results
  int64_t out_of_memory_at = -1;       // -1: null
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
};

}  // namespace fastenough::report
