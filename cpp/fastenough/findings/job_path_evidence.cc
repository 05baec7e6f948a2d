#include "fastenough/findings/job_path_evidence.h"

#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void AddJobPathEvidence(const analysis::JobCriticalPath& path, std::vector<Finding>& findings) {
  if (path.status != "ok" || path.length_ns <= 0) return;
  for (Finding& f : findings) {
    if (f.rank != -1 || (f.code != "straggler-rank" && f.code != "load-imbalance")) continue;
    if (f.where.empty()) continue;
    for (const analysis::JobPathRank& r : path.per_rank) {
      if (r.rank != f.where.front().rank) continue;
      AddEvidence(f, "job_critical_path_share",
                  Round3(static_cast<double>(r.gating_ns) / static_cast<double>(path.length_ns)));
      AddEvidence(f, "job_critical_path_collectives", r.gating_collectives);
      break;
    }
  }
}

}  // namespace fastenough::findings
