#include "fastenough/analysis/rank_analysis.h"

#include <future>

#include "fastenough/analysis/steady_window.h"

namespace fastenough::analysis {

namespace {

// The analyses that read the store alone (no other analysis): with
// RankOptions::parallel they run on a second thread beside the device chain.
struct StoreOnly {
  std::vector<OpRow> ops;
  GraphStats graphs;
  CompiledRegions compiled;
};

StoreOnly AnalyzeStoreOnly(const trace::EventStore& store, bool depth) {
  StoreOnly s;
  s.ops = AggregateOps(store);
  if (depth) {
    s.graphs = AnalyzeGraphLaunches(store);
    s.compiled = AnalyzeCompiledRegions(store);
  }
  return s;
}

}  // namespace

RankAnalysis AnalyzeRank(const trace::EventStore& store, const RankOptions& options) {
  RankAnalysis r;
  r.rank = store.rank;
  r.path = store.path;
  // Each analysis writes its own field, so the result is the same whichever
  // thread computes it.
  std::future<StoreOnly> side;
  if (options.parallel) {
    side = std::async(std::launch::async, AnalyzeStoreOnly, std::cref(store), options.depth);
  }
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
  if (options.depth) {
    r.steady = SteadyWindows(store, r.steps);
    r.step_breakdown = AnalyzeStepBreakdown(store, r.steps);
    r.efficiency = AnalyzeKernelEfficiency(store, r.steps, r.steady, index);
    r.memory = AnalyzeMemory(store, r.steps);
    r.critical_path = AnalyzeCriticalPath(store, r.steady);
    r.device_turns = AnalyzeDeviceTurns(r.devices, r.steady);
  }
  StoreOnly s = options.parallel ? side.get() : AnalyzeStoreOnly(store, options.depth);
  r.ops = std::move(s.ops);
  r.graphs = std::move(s.graphs);
  r.compiled = std::move(s.compiled);
  return r;
}

}  // namespace fastenough::analysis
