// One step reference per run report (issue 37, item 4): every finding's
// saving is a share of the same step, the steady median of the report's
// headline mode, and its time per step is that share of that step.
//
// Findings are priced against the steps their evidence came from: the trace's
// detectors against the profiled step (88.8 ms in the demo, under the
// profiler), the agent's checks against their own steps, growing-input
// against the run. The demo's serial-small-gemm then read "<= 1.41 ms/step
// (1.6% of a step)" beside a 15.5 ms steady median: 1.41 ms is 9% of that
// step. The share is what the window measures well (the profiler slows the
// whole step, the finding's part with it), so it is kept, and the time per
// step is re-expressed as that share of the reference; what the finding
// measured in its own steps stays in its evidence.
#pragma once

#include <cstdint>
#include <vector>

#include "fastenough/findings/finding.h"

namespace fastenough::rundir {

// Every finding with a share of a step and a time per step: per_step_ns
// becomes share_of_step * reference_ns; evidence "step_reference_ns" says
// which step, and "measured_per_step_ns" / "measured_step_ns" what the
// finding measured in its own steps when that was another step (more than
// 1% apart). reference_ns <= 0: nothing changes.
void ExpressSavingsAgainstStep(int64_t reference_ns, std::vector<findings::Finding>* findings);

}  // namespace fastenough::rundir
