// The hook that runs every trace-based finding detector on one rank. The
// detectors come later (another area); the pipeline already calls this and
// ranks what it returns by saving.
#pragma once

#include <vector>

#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/findings/finding.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::findings {

std::vector<Finding> DetectAll(const trace::EventStore& store,
                               const analysis::RankAnalysis& analysis);

}  // namespace fastenough::findings
