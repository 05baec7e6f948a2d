#include "fastenough/analysis/rank_analysis.h"

#include "fastenough/analysis/steady_window.h"

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
  if (options.depth) {
    r.steady = SteadyWindows(store, r.steps);
    r.step_breakdown = AnalyzeStepBreakdown(store, r.steps);
    r.efficiency = AnalyzeKernelEfficiency(store, r.steps, r.steady, index);
    r.memory = AnalyzeMemory(store, r.steps);
    r.critical_path = AnalyzeCriticalPath(store, r.steady);
    r.graphs = AnalyzeGraphLaunches(store);
    r.compiled = AnalyzeCompiledRegions(store);
    r.device_turns = AnalyzeDeviceTurns(r.devices, r.steady);
  }
  return r;
}

}  // namespace fastenough::analysis
