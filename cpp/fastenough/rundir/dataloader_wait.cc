// Why the wait, and not the window's share: under the profiler every aten op
// of the model is recorded, and a CPU loop slows several times more than its
// loader's indexing. Lightning's fit (a TensorDataset, no workers) waited
// 1.37 ms of a 17.6 ms profiled step (7.8%), so the window's share carried to
// the 2.5 ms steady median claimed 0.20 ms a step; its agent timed 0.34 ms a
// step in __next__ outside the window, and `ab` of the fix (workers) measured
// 9.8% [3.1%, 16.1%] of a step, above the claim's 7.8%. The wait itself bounds
// what a fix of the loader saves: workers, prefetch or cheaper items remove at
// most the time the loop spends waiting for its batch.
#include "fastenough/rundir/dataloader_wait.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "fastenough/findings/catalog.h"

namespace fastenough::rundir {

void FindDataloaderWaitFromAgents(const std::vector<AgentRecord>& agents, const std::string& mode,
                                  int64_t reference_ns, bool has_device,
                                  std::vector<findings::Finding>* findings) {
  // With a device, waiting on the host while queued kernels run is no waste:
  // the window's device-idle measure decides there.
  if (has_device || reference_ns <= 0 || mode.empty()) return;
  for (const findings::Finding& f : *findings) {
    if (f.code == "dataloader-bound") return;  // the window saw it: priced below
  }
  // One loop process: across ranks, a machine's load stretches every rank's
  // loading alike, and the window's comparison of the ranks decides
  // (findings::KeepLoaderWaitsBeyondTheOtherRanks).
  std::set<int64_t> ranks;
  for (const AgentRecord& a : agents) {
    if (a.in_the_loop()) ranks.insert(a.rank.value_or(0));
  }
  if (ranks.size() != 1) return;
  const auto rank = static_cast<int>(*ranks.begin());
  const AgentRecord* agent = LoopAgentThatTimed(agents, rank, mode);
  if (agent == nullptr) return;
  const auto it = agent->step_split.find(mode);
  const auto site = agent->dataloader_site.find(mode);
  if (it == agent->step_split.end() || site == agent->dataloader_site.end()) return;
  const StepSplit& split = it->second;
  if (split.steps < kMinTimedStepsForDataWait || split.data_ns_p10 < 0 ||
      static_cast<double>(split.data_ns_p10) <
          kLoaderHoldsTheLoopShare * static_cast<double>(reference_ns)) {
    return;
  }
  findings::Finding f = findings::NewFinding("dataloader-bound", findings::Verdict::kAvoidable, rank);
  f.source = "agent";
  f.title = "Steps wait for the next batch (no device: the loop itself waits)";
  f.where.push_back(site->second);
  f.evidence.emplace_back("loop_wait_in_nearly_every_step_ns", split.data_ns_p10);
  f.evidence.emplace_back(
      "found_by",
      std::string("the agent's timed steps: the loop waited in DataLoader.__next__ in nearly "
                  "every one; the profiler window, which slows the model's ops more than the "
                  "loader's, did not show it"));
  findings->push_back(std::move(f));
}

void PriceDataloaderWaitFromAgents(const std::vector<AgentRecord>& agents, const std::string& mode,
                                   int64_t reference_ns, std::vector<findings::Finding>* findings) {
  if (reference_ns <= 0 || mode.empty()) return;
  for (findings::Finding& f : *findings) {
    if (f.code != "dataloader-bound" || f.verdict != findings::Verdict::kAvoidable) continue;
    const AgentRecord* agent = LoopAgentThatTimed(agents, std::max(0, f.rank), mode);
    if (agent == nullptr) continue;
    const auto it = agent->step_split.find(mode);
    if (it == agent->step_split.end()) continue;
    const StepSplit& split = it->second;
    if (split.steps < kMinTimedStepsForDataWait || split.data_ns <= 0) continue;
    const double wait = static_cast<double>(split.data_ns) / static_cast<double>(split.steps);
    const double share = std::min(1.0, wait / static_cast<double>(reference_ns));
    if (f.saving.per_step_ns > 0) f.evidence.emplace_back("window_per_step_ns", f.saving.per_step_ns);
    f.saving.per_step_ns = static_cast<int64_t>(std::llround(share * static_cast<double>(reference_ns)));
    f.saving.share_of_step = share;
    f.saving.upper_bound = true;
    f.evidence.emplace_back("data_wait_ns_per_step", static_cast<int64_t>(std::llround(wait)));
    f.evidence.emplace_back("data_wait_timed_steps", split.steps);
    f.evidence.emplace_back(
        "saving_basis",
        std::string("measured: the loop's mean wait in DataLoader.__next__ over ") +
            std::to_string(split.steps) + " steady " + mode +
            " steps timed outside the profiler window (the most a faster loader removes)");
  }
}

}  // namespace fastenough::rundir
