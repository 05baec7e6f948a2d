// Findings only a run directory can give, from the agent's step records and
// process records rather than from a trace:
//   recompute-prefix    each step feeds the whole growing sequence again
//                       (generation without a KV cache): growing_input.cc
//   step-bound          what bounds the steady step, with the split into
//                       forward/backward/optimizer/data: step_bound.cc
//   cpu-oversubscribed  more compute threads than cores: cpu_threads.cc
// and the advice of trace findings fitted to what the agent saw of the
// program (an in-memory dataset on a CPU-only job): dataloader_advice.cc.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/rundir/agent_records.h"
#include "fastenough/rundir/run_files.h"
#include "fastenough/rundir/step_summary.h"

namespace fastenough::rundir {

// Runs of at least kMinGrowingRun steps whose input length per item grows by
// the same small amount every step, with the step time growing along.
inline constexpr int kMinGrowingRun = 16;
// The agent times the first steady steps of each mode in Python before its
// native hook takes over (python/fastenough/agent/step_timer.py TIMED_STEPS).
inline constexpr size_t kAgentTimedSteps = 16;

void AddGrowingInputFindings(const std::vector<StepRecord>& steps,
                             const std::vector<AgentRecord>& agents,
                             std::vector<findings::Finding>* out);

struct StepBoundInputs {
  std::vector<StepSummary> steps;  // per rank and mode
  std::vector<AgentRecord> agents;
  bool has_device = false;
  // Device busy share of the profiler window and the mode it ran in.
  std::optional<double> window_busy_share;
  std::string window_mode;
  bool memory_near_limit = false;
  // What the avoidable findings of each rank save together, as a share of a
  // step (findings/overlaps.h): step-bound then describes what remains.
  std::map<int, double> avoidable_share;
  // Share of the profiled steps each rank spent in collectives (c10d ops'
  // own time): a gloo job waits in c10d::allreduce_, which is no host compute.
  std::map<int, double> comm_share;
  // A job of several processes whose communication the trace did not show
  // (gloo jobs run without the profiler window by default).
  bool distributed_untraced = false;
};

void AddStepBoundFindings(const StepBoundInputs& in, std::vector<findings::Finding>* out);

// The CPU the run used in its loop (the steady phases, else the warm-up
// ones), from the sampler; 100 = one core; nullopt: unknown.
struct LoopCpu {
  std::optional<double> tree_pct;  // the whole process tree
  // The processes of the tree that are not the loop's own (main or rank):
  // DataLoader workers, a launcher. nullopt in run directories of samplers
  // that wrote no per-process rows.
  std::optional<double> helpers_pct;
};

void AddCpuThreadFindings(const std::vector<AgentRecord>& agents, const LoopCpu& loop_cpu,
                          std::vector<findings::Finding>* out);

void FitDataloaderAdvice(const std::vector<AgentRecord>& agents, bool has_device,
                         std::vector<findings::Finding>* findings);

}  // namespace fastenough::rundir
