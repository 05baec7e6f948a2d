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
// The agent's parts are disjoint and within their step (step_timer.py); the
// shares are still made to add up to at most the step here, for records of
// older agents that summed to 129-159% (issue 37, item 4).
//
// A step's mode in words is what the step does (issue 37, item 5): the agent
// groups steps by the flags at the main model's calls (module.training, grad
// mode), but a TD3 step whose acting forward ran under no_grad also ran a
// backward and an optimizer step, and an evaluation left in train mode ran
// neither. The agent's record says, per mode, in how many timed steps each
// ran ("steps_with_backward", "steps_with_optimizer") and what the flags said
// ("steps_training_flag", "steps_grad_enabled"); the title names the steps
// "training" or "evaluation" from the first and reports the second beside it.
#include <algorithm>
#include <cstdio>
#include <map>

#include "fastenough/findings/catalog.h"
#include "fastenough/rundir/run_findings.h"
#include "fastenough/util/units.h"

namespace fastenough::rundir {

namespace {

// What the timed steps of a mode did, from the agent's record (agents before
// issue 37 wrote none of it: `known` false).
struct StepDoes {
  bool known = false;
  int64_t steps = 0, with_forward = 0, with_backward = 0, with_optimizer = 0;
  int64_t training_flag = 0, grad_enabled = 0;
};

StepDoes ReadStepDoes(const report::MetaAgent& record, const std::string& mode) {
  StepDoes d;
  for (const auto& [name, m] : record.step_split) {
    if (name != mode || !m.recorded.Has("steps_with_backward")) continue;
    d.known = true;
    d.steps = m.steps;
    d.with_forward = m.steps_with_forward;
    d.with_backward = m.steps_with_backward;
    d.with_optimizer = m.steps_with_optimizer;
    d.training_flag = m.steps_training_flag;
    d.grad_enabled = m.steps_grad_enabled;
  }
  return d;
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
    const AgentRecord* agent = LoopAgentThatTimed(in.agents, s->rank, mode);
    StepSplit split;
    if (agent != nullptr) {
      auto it = agent->step_split.find(mode);
      if (it != agent->step_split.end()) split = it->second;
    }
    const bool have_split = split.steps > 0 && split.step_ns > 0;
    // Parts of one step, shares of that step: at most the whole of it. A record
    // whose parts add up to more (an agent before issue 37) is scaled down.
    const double parts_ns = static_cast<double>(std::max<int64_t>(0, split.forward_ns)) +
                            std::max<int64_t>(0, split.backward_ns) +
                            std::max<int64_t>(0, split.optimizer_ns) +
                            std::max<int64_t>(0, split.data_ns);
    const double whole =
        have_split ? std::max(static_cast<double>(split.step_ns), parts_ns) : 1.0;
    auto share = [&](int64_t ns) {
      return have_split ? std::max<int64_t>(0, ns) / whole : 0.0;
    };
    const double fwd = share(split.forward_ns), bwd = share(split.backward_ns),
                 opt = share(split.optimizer_ns), data = share(split.data_ns);
    const double other = have_split ? std::max(0.0, 1.0 - fwd - bwd - opt - data) : 0.0;
    const StepDoes does =
        agent != nullptr && have_split ? ReadStepDoes(agent->record, mode) : StepDoes{};
    std::optional<double> busy;
    if (in.window_busy_share && (in.window_mode.empty() || in.window_mode == mode)) {
      busy = in.window_busy_share;
    }
    std::string bound, why;
    const auto comm_it = in.comm_share.find(s->rank);
    const double comm = comm_it == in.comm_share.end() ? 0.0 : comm_it->second;
    if (have_split && data >= 0.3) {
      bound = "input loading";
      why = "the loop waits for its next batch " + util::FormatShare(data) + " of the step";
    } else if (comm >= 0.3) {
      bound = "communication";
      why = "collectives (c10d ops) take " + util::FormatShare(comm) + " of the profiled steps";
    } else if (in.has_device && busy && *busy >= 0.85) {
      bound = "device compute";
      why = "the device computes " + util::FormatShare(*busy) + " of the profiled steps";
    } else if (in.has_device && busy) {
      bound = "the host (launches and Python)";
      why = "the device is busy only " + util::FormatShare(*busy) + " of the profiled steps";
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
    // The steps in words: what they do when the agent said, else the mode.
    std::string kind = mode.empty() ? std::string() : mode + " ";
    std::string flags;
    std::string does_mode;
    if (does.known && does.steps > 0) {
      const bool trains = 2 * std::max(does.with_backward, does.with_optimizer) > does.steps;
      does_mode = trains ? "train" : "eval";
      kind = trains ? "training " : "evaluation ";
      // What ran, and the flags at the main model's outermost calls (by the
      // majority of the timed steps that called it), are said when the steps
      // did not all do the same, or the flags are not what the steps do (an
      // evaluation in train mode or with autograd on, a training step whose
      // model reads eval mode).
      const int64_t n = does.steps;
      std::string ran;
      if (does.with_backward == n && does.with_optimizer == n) {
        ran = "backward and optimizer run";
      } else if (does.with_backward == 0 && does.with_optimizer == 0) {
        ran = "no backward, no optimizer step";
      } else {
        ran = "a backward in " + std::to_string(does.with_backward) + " and an optimizer step in " +
              std::to_string(does.with_optimizer) + " of " + std::to_string(n) + " timed steps";
      }
      bool say = ran.find(" of ") != std::string::npos;
      std::string flag_words;
      if (does.with_forward > 0) {
        const bool training_flag = 2 * does.training_flag > does.with_forward;
        const bool grad = 2 * does.grad_enabled > does.with_forward;
        say = say || (trains ? !training_flag || !grad : training_flag || grad);
        flag_words = std::string("; the model's flags say ") + (training_flag ? "train" : "eval") +
                     " mode, autograd " + (grad ? "on" : "off");
      }
      if (say) flags = "; " + ran + flag_words;
    }
    using util::FormatShare;
    const std::string median = util::FormatDuration(static_cast<double>(s->median_ns));
    const std::string beyond = "Beyond the avoidable findings (together at most " +
                               FormatShare(std::min(1.0, avoidable)) + " of a step), s";
    std::string title = (avoidable > 0 ? beyond : std::string("S")) +
                        "teady " + kind + "steps (median " + median + flags + ") are bound by " +
                        bound + ": " + why;
    if (have_split) {
      title += " (forward " + FormatShare(fwd) + ", backward " + FormatShare(bwd) +
               ", optimizer " + FormatShare(opt) + ", data " + FormatShare(data) + ", other " +
               FormatShare(other) + ")";
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
    if (does.known) {
      if (!does_mode.empty()) f.evidence.emplace_back("does", does_mode);
      f.evidence.emplace_back("steps_with_backward", does.with_backward);
      f.evidence.emplace_back("steps_with_optimizer", does.with_optimizer);
      f.evidence.emplace_back("steps_with_forward", does.with_forward);
      f.evidence.emplace_back("steps_training_flag", does.training_flag);
      f.evidence.emplace_back("steps_grad_enabled", does.grad_enabled);
    }
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
