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

// Prices each avoidable dataloader-bound finding at the loop's mean wait in
// DataLoader.__next__ per steady step of `mode` (the report's headline mode,
// whose median is `reference_ns`), as the rank's agent timed it. Replaces the
// profiled window's share, carried to the reference step, which understates a
// loader that the profiler slows less than the model's ops. Call it after
// ExpressSavingsAgainstStep.
void PriceDataloaderWaitFromAgents(const std::vector<AgentRecord>& agents, const std::string& mode,
                                   int64_t reference_ns, std::vector<findings::Finding>* findings);

}  // namespace fastenough::rundir
