// The job's report from its ranks' summaries (rank_summary.h), whether they
// were just taken from traces (`fastenough analyze`) or read back from
// fastenough.rank-summary/1 files (`fastenough merge`): the same summaries
// give the same report.
#pragma once

#include <cstddef>
#include <vector>

#include "fastenough/report/rank_summary.h"
#include "fastenough/report/report.h"

namespace fastenough::report {

// Summaries in input order. Inputs and counters list every rank; meta and the
// shape census are the first input's (ranks run the same model); cross-rank
// findings (straggler-rank) come from the collectives; the findings of every
// rank are ranked; steps, top kernels (top_n) and top ops (top_n) are merged
// over the ranks.
Report AssembleReport(std::vector<RankSummary> ranks, size_t top_n);

}  // namespace fastenough::report
