#include "fastenough/analysis/rank_analysis.h"

namespace fastenough::analysis {

RankAnalysis AnalyzeRank(const trace::EventStore& store, const RankOptions& options) {
  RankAnalysis r;
  r.rank = store.rank;
  r.path = store.path;
  // One time-ordered index of device activity serves every device analysis.
  const std::vector<uint32_t> index = DeviceActivityIndex(store);
  r.devices = AnalyzeDevices(store, index, options.breakdown);
  int64_t busy_sum = 0;
  for (const auto& d : r.devices) {
    r.busy_all = timeline::Union(r.busy_all, d.busy);
    busy_sum += d.busy_ns;
  }
  r.steps = AnalyzeSteps(timeline::FindStepWindows(store), r.busy_all);
  r.launch = AnalyzeLaunches(store, index);
  r.kernels = AggregateKernels(store, index, busy_sum);
  r.ops = AggregateOps(store);
  return r;
}

}  // namespace fastenough::analysis
