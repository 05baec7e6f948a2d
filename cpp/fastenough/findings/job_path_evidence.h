// The job's critical path across ranks (analysis/job_critical_path.h) as
// evidence of the cross-rank findings that name a rank (straggler-rank,
// load-imbalance): how much of the job's path that rank's work before a
// collective was, and how often the others waited for it.
//   job_critical_path_share       its gating stretches over the job path's length
//   job_critical_path_collectives the matched collectives it arrived last at
// Evidence only: the job path spans every matched collective of the trace
// (warm-up included), the findings' savings their steady steps.
#pragma once

#include <vector>

#include "fastenough/analysis/job_critical_path.h"
#include "fastenough/findings/finding.h"

namespace fastenough::findings {

void AddJobPathEvidence(const analysis::JobCriticalPath& path, std::vector<Finding>& findings);

}  // namespace fastenough::findings
