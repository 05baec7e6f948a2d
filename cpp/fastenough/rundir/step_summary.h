// Steady-state throughput from steps.jsonl: the step-time distribution and
// steps/items/tokens per second over the steps the agent marked "steady".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/rundir/run_files.h"

namespace fastenough::rundir {

struct StepSummary {
  int rank = 0;
  int64_t count = 0;  // steady steps
  int64_t all_steps = 0;  // every step of the rank, warmup and profile included
  int64_t median_ns = 0, p10_ns = 0, p90_ns = 0;  // per-step end - start
  int64_t span_ns = 0;  // first steady start -> last steady end
  // Throughput = count / span, so time between steps (data loading outside
  // the marked step) counts: it is what the user waits for.
  std::optional<double> steps_per_s, items_per_s, tokens_per_s;
  std::string source;  // the agent's step source: explicit|optimizer|dataloader|module
};

// Quantile q in [0,1] by linear interpolation between closest ranks of the
// sorted values (n = 1: that value; n = 0: 0).
int64_t Quantile(std::vector<int64_t> values, double q);

// One summary per rank that has steps, ordered by rank.
std::vector<StepSummary> SummarizeSteps(const std::vector<StepRecord>& steps);

}  // namespace fastenough::rundir
