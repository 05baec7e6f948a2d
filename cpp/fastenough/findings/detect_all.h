// The hooks that run every trace-based finding detector: DetectAll on one
// rank (the pipeline ranks what it returns by saving), DetectAcrossRanks on
// all ranks of a multi-rank input (straggler-rank).
#pragma once

#include <vector>

#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/findings/finding.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::findings {

std::vector<Finding> DetectAll(const trace::EventStore& store,
                               const analysis::RankAnalysis& analysis);

// Needs >= 2 ranks; empty otherwise. stores[i] and analyses[i] are one rank.
std::vector<Finding> DetectAcrossRanks(const std::vector<const trace::EventStore*>& stores,
                                       const std::vector<const analysis::RankAnalysis*>& analyses);

}  // namespace fastenough::findings
