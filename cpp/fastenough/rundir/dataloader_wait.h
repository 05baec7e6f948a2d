// dataloader-bound's saving from the loop's own wait for its batches, timed
// outside the profiler window (issue 37, items 1 and 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/rundir/agent_records.h"

namespace fastenough::rundir {

// The fewest timed steps whose mean wait prices the finding.
constexpr int64_t kMinTimedStepsForDataWait = 4;

// A loader holds the loop when its wait in nearly every step is at least this
// share of the steady step (the trace's detector asks the same of the window:
// findings/dataloader_bound.cc).
constexpr double kLoaderHoldsTheLoopShare = 0.05;

// Makes the avoidable dataloader-bound finding of a host-only run of one loop
// process from its agent's timed steps, when the profiler window did not: the
// loop's wait in DataLoader.__next__ in nearly every timed step (their 10th
// percentile) is at least kLoaderHoldsTheLoopShare of `reference_ns`, at the
// user's line that iterates the loader. Under the profiler the model's ops
// slow several times more than the loader's indexing, so a loader that holds
// the unprofiled loop by 10-20% sat near the window's 5% gate and was found in
// some runs only (a torch.func loop over a TensorDataset: 3 of 5 runs;
// Lightning's fit). Call it before FitDataloaderAdvice (its fix text) and
// PriceDataloaderWaitFromAgents (its saving).
void FindDataloaderWaitFromAgents(const std::vector<AgentRecord>& agents, const std::string& mode,
                                  int64_t reference_ns, bool has_device,
                                  std::vector<findings::Finding>* findings);

// Prices each avoidable dataloader-bound finding at the loop's mean wait in
// DataLoader.__next__ per steady step of `mode` (the report's headline mode,
// whose median is `reference_ns`), as the rank's agent timed it. Replaces the
// profiled window's share, carried to the reference step, which understates a
// loader that the profiler slows less than the model's ops. Call it after
// ExpressSavingsAgainstStep.
void PriceDataloaderWaitFromAgents(const std::vector<AgentRecord>& agents, const std::string& mode,
                                   int64_t reference_ns, std::vector<findings::Finding>* findings);

}  // namespace fastenough::rundir
