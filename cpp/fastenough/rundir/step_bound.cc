// step-bound: every steady phase gets a verdict, also when nothing in it is
// avoidable. What bounds the step comes from where its time goes:
//   input loading     data >= 30% of the step (the loader's __next__)
//   communication     collectives >= 30% of the profiled steps (c10d ops)
//   device compute    the device busy >= 85% of the profiler window
//   host (launch)     a device that waits for the host
//   host compute      no device: the model's own CPU work (with gloo
//                     communication, not told apart, in an untraced job)
// It describes what remains after the avoidable findings of its rank: with
// any, it says so and never that nothing is avoidable.
// and the split into forward / backward / optimizer / data / other comes
// from the agent's timing of the steady steps it still ran in Python (the
// first steady steps of each mode, before it defers to its native hook).
#include <algorithm>
#include <cstdio>
#include <map>

#include "fastenough/findings/catalog.h"
#include "fastenough/rundir/run_findings.h"

namespace fastenough::rundir {

namespace {

std::string Pct(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * share);
  return buf;
}

std::string Ms(int64_t ns) {
  char buf[32];
  if (ns >= 1000000) {
    std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f us", static_cast<double>(ns) / 1e3);
  }
  return buf;
}

const AgentRecord* LoopAgentOfRank(const std::vector<AgentRecord>& agents, int rank) {
  for (const AgentRecord& a : agents) {
    if (a.in_the_loop() && a.rank.value_or(0) == rank) return &a;
  }
  return nullptr;
}

}  // namespace

void AddStepBoundFindings(const StepBoundInputs& in, std::vector<findings::Finding>* out) {
  // The lowest rank with steady steps speaks for each mode (ranks step together).
  std::map<std::string, const StepSummary*> by_mode;
  for (const StepSummary& s : in.steps) {
    if (s.count == 0) continue;
    auto it = by_mode.find(s.mode);
    if (it == by_mode.end() || s.rank < it->second->rank) by_mode[s.mode] = &s;
  }
  for (const auto& [mode, s] : by_mode) {
    const AgentRecord* agent = LoopAgentOfRank(in.agents, s->rank);
    StepSplit split;
    if (agent != nullptr) {
      auto it = agent->step_split.find(mode);
      if (it != agent->step_split.end()) split = it->second;
    }
    const bool have_split = split.steps > 0 && split.step_ns > 0;
    auto share = [&](int64_t ns) {
      return have_split ? std::min(1.0, static_cast<double>(ns) / split.step_ns) : 0.0;
    };
    const double fwd = share(split.forward_ns), bwd = share(split.backward_ns),
                 opt = share(split.optimizer_ns), data = share(split.data_ns);
    const double other = have_split ? std::max(0.0, 1.0 - fwd - bwd - opt - data) : 0.0;
    std::optional<double> busy;
    if (in.window_busy_share && (in.window_mode.empty() || in.window_mode == mode)) {
      busy = in.window_busy_share;
    }
    std::string bound, why;
    const auto comm_it = in.comm_share.find(s->rank);
    const double comm = comm_it == in.comm_share.end() ? 0.0 : comm_it->second;
    if (have_split && data >= 0.3) {
      bound = "input loading";
      why = "the loop waits for its next batch " + Pct(data) + " of the step";
    } else if (comm >= 0.3) {
      bound = "communication";
      why = "collectives (c10d ops) take " + Pct(comm) + " of the profiled steps";
    } else if (in.has_device && busy && *busy >= 0.85) {
      bound = "device compute";
      why = "the device computes " + Pct(*busy) + " of the profiled steps";
    } else if (in.has_device && busy) {
      bound = "the host (launches and Python)";
      why = "the device is busy only " + Pct(*busy) + " of the profiled steps";
    } else if (!in.has_device && in.distributed_untraced) {
      bound = "host compute and communication";
      why = "there is no device, and the collectives of this multi-process job were not "
            "traced (gloo jobs run without the profiler window unless --trace-gloo): the CPU "
            "work and the waits in all-reduce are not told apart";
    } else if (!in.has_device) {
      bound = "host compute";
      why = "there is no device: the model's own CPU work";
    } else {
      continue;  // a device, but no window to say how busy it was
    }
    if (in.memory_near_limit) bound += ", with device memory near the limit";
    findings::Finding f = findings::NewFinding("step-bound", findings::Verdict::kBounded, s->rank);
    f.source = "agent";
    const auto avoid_it = in.avoidable_share.find(s->rank);
    const double avoidable = avoid_it == in.avoidable_share.end() ? 0.0 : avoid_it->second;
    std::string title = (avoidable > 0 ? "Beyond the avoidable findings (together at most " +
                                             Pct(std::min(1.0, avoidable)) + " of a step), s"
                                       : std::string("S")) +
                        "teady " + (mode.empty() ? std::string() : mode + " ") + "steps (median " +
                        Ms(s->median_ns) + ") are bound by " + bound + ": " + why;
    if (have_split) {
      title += " (forward " + Pct(fwd) + ", backward " + Pct(bwd) + ", optimizer " + Pct(opt) +
               ", data " + Pct(data) + ", other " + Pct(other) + ")";
    }
    f.title = title;
    f.evidence.emplace_back("bound", bound);
    if (avoidable > 0) {
      f.action =
          "What the avoidable findings above do not cover is the work the step does under the "
          "current protocol: fix those first; beyond them, gains need a different protocol "
          "(precision, batch, model) or a faster kernel path. If the wait is then short "
          "enough, stop there.";
      f.evidence.emplace_back("avoidable_share_of_step", std::min(1.0, avoidable));
    }
    if (comm > 0) f.evidence.emplace_back("comm_share", comm);
    if (!mode.empty()) f.evidence.emplace_back("mode", mode);
    f.evidence.emplace_back("step_median_ns", s->median_ns);
    if (busy) f.evidence.emplace_back("device_busy_share", *busy);
    if (have_split) {
      f.evidence.emplace_back("forward_share", fwd);
      f.evidence.emplace_back("backward_share", bwd);
      f.evidence.emplace_back("optimizer_share", opt);
      f.evidence.emplace_back("data_share", data);
      f.evidence.emplace_back("other_share", other);
      f.evidence.emplace_back("timed_steps", split.steps);
    }
    f.saving.per_step_ns = 0;
    f.saving.share_of_step = 0;
    out->push_back(std::move(f));
  }
}

}  // namespace fastenough::rundir
