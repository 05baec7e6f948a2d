// The time a trace finding is about, over the steady steps: where the time
// its saving would come from lies. One rule per code (docs/trace-depth.md,
// "What a finding covers"); a code without a rule covers what its `where`
// names (the steady instances of those kernels and host ops), and a finding
// that names nothing covers nothing (an empty set).
//
// Used to measure the part of the critical path a finding covers
// (`critical_path_share`): a saving off the critical path shortens nothing,
// and two findings whose covered time overlaps on the path share it.
#pragma once

#include "fastenough/findings/detect_context.h"
#include "fastenough/findings/finding.h"
#include "fastenough/timeline/interval_set.h"

namespace fastenough::findings {

// explained: the device idle the idle-explaining detectors claimed (DetectAll's
// set), which gpu-idle-host-bound leaves out of its own.
timeline::IntervalSet FindingCoverage(const DetectContext& ctx, const Finding& f,
                                      const timeline::IntervalSet& explained);

}  // namespace fastenough::findings
