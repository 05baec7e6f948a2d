#include "fastenough/rundir/scheduler_wait.h"

#include <algorithm>
#include <map>
#include <string>

#include "fastenough/stats/quantile.h"
#include "fastenough/util/units.h"

namespace fastenough::rundir {

namespace {

// The rank a cross-rank finding names (its evidence "rank"); -1 none.
int64_t NamedRank(const findings::Finding& f) {
  for (const auto& [key, value] : f.evidence) {
    if (key != "rank") continue;
    if (const int64_t* r = std::get_if<int64_t>(&value)) return *r;
  }
  return -1;
}

// A rank's main thread over its profiler window, per window step.
struct PerStep {
  double cpu = 0;   // on a core
  double wait = 0;  // ready to run, every core taken
};

// The other ranks' median of `of`.
double OthersMedian(const std::map<int64_t, PerStep>& ranks, int64_t rank,
                    double PerStep::*of) {
  std::vector<double> v;
  for (const auto& [r, s] : ranks) {
    if (r != rank) v.push_back(s.*of);
  }
  return stats::Median(std::move(v));
}

}  // namespace

void LeaveOutRankFindingsTheSchedulerExplains(const std::vector<AgentRecord>& agents,
                                              bool has_device,
                                              std::vector<findings::Finding>* findings,
                                              Measurement* measurement) {
  if (has_device) return;
  std::map<int64_t, PerStep> per_step;  // the loop record of each rank that traced
  for (const AgentRecord& a : agents) {
    if (a.role != "rank" || !a.rank || !a.traced || a.profile_steps <= 0 ||
        !a.profile_run_delay_ns || !a.profile_thread_cpu_ns) {
      continue;
    }
    const auto steps = static_cast<double>(a.profile_steps);
    per_step[*a.rank] = {static_cast<double>(*a.profile_thread_cpu_ns) / steps,
                         static_cast<double>(*a.profile_run_delay_ns) / steps};
  }
  if (per_step.size() < 2) return;
  std::vector<findings::Finding> kept;
  std::map<int64_t, std::vector<std::string>> left_out;  // rank -> codes
  std::map<int64_t, int64_t> claimed;                     // rank -> the most claimed a step
  for (findings::Finding& f : *findings) {
    const int64_t rank = NamedRank(f);
    const bool about_a_rank = f.code == "straggler-rank" || f.code == "load-imbalance";
    const auto it = per_step.find(rank);
    if (!about_a_rank || it == per_step.end() || f.saving.per_step_ns <= 0) {
      kept.push_back(std::move(f));
      continue;
    }
    // The machine's: the rank waited for a core at least half the claim more
    // than the others, and did not work at least half the claim more than
    // they did (a heavier rank waits more on a loaded machine too, for the
    // cores its extra work needs).
    const double half = 0.5 * static_cast<double>(f.saving.per_step_ns);
    const bool waited = it->second.wait - OthersMedian(per_step, rank, &PerStep::wait) >= half;
    const bool worked = it->second.cpu - OthersMedian(per_step, rank, &PerStep::cpu) >= half;
    if (!waited || worked) {
      kept.push_back(std::move(f));
      continue;
    }
    left_out[rank].push_back(f.code);
    claimed[rank] = std::max(claimed[rank], f.saving.per_step_ns);
  }
  for (const auto& [rank, codes] : left_out) {
    const PerStep& s = per_step.at(rank);
    std::string named = codes[0];
    for (size_t i = 1; i < codes.size(); ++i) named += " or " + codes[i];
    AddMeasurementReason(
        *measurement, "rank-waited-for-cores", "partial",
        "rank " + std::to_string(rank) + " waited for a core " +
            util::FormatDuration(s.wait) + " a profiled step (the other ranks " +
            util::FormatDuration(OthersMedian(per_step, rank, &PerStep::wait)) +
            ") and worked " + util::FormatDuration(s.cpu) + " on one (the others " +
            util::FormatDuration(OthersMedian(per_step, rank, &PerStep::cpu)) +
            "): the machine, not the program, kept it late, so it is not named " + named +
            " (up to " + util::FormatDuration(static_cast<double>(claimed.at(rank))) +
            " a step claimed); run on a quieter machine, or give each rank cores of its own");
  }
  *findings = std::move(kept);
}

}  // namespace fastenough::rundir
