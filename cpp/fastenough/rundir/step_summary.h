// Steady-state throughput from steps.jsonl: the step-time distribution and
// steps/items/tokens per second over the steps the agent marked "steady",
// per rank and mode (a program that trains and evaluates has both).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/rundir/run_files.h"
#include "fastenough/rundir/step_trend.h"

namespace fastenough::rundir {

struct StepSummary {
  int rank = 0;
  std::string mode;  // "train" | "eval" | "" (older run directories)
  int64_t count = 0;  // steady steps
  int64_t all_steps = 0;  // every step of the rank and mode, warmup and profile included
  int64_t median_ns = 0, p10_ns = 0, p90_ns = 0;  // per-step end - start
  int64_t span_ns = 0;  // first steady start -> last steady end
  // The steady steps' own time, summed. Steps follow each other without gaps
  // inside a steady phase, so this is the loop's time; what it leaves out of
  // span_ns is the profiler window, the tool's pauses at phase edges and the
  // other mode's phases, none of which is steady time.
  int64_t steady_ns = 0;
  // Throughput = count / steady_ns; items and tokens likewise.
  std::optional<double> steps_per_s, items_per_s, tokens_per_s;
  std::string source;  // the agent's step source: explicit|optimizer|dataloader|module
  // Whether the steady steps' time trends over the run, in the order they ran
  // (step_trend.h): a drifting loop is no steady state (measurement.cc).
  StepTrend trend;
};

// One summary per (rank, mode) that has steps, ordered by rank, then mode.
std::vector<StepSummary> SummarizeSteps(const std::vector<StepRecord>& steps);

// The mode whose steady steps took the most time over all ranks ("" when no
// mode has steady steps): the run's headline figures come from it.
std::string HeadlineMode(const std::vector<StepSummary>& summaries);

}  // namespace fastenough::rundir
