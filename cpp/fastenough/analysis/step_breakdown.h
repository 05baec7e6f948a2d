// Per-step time breakdown in the categories of the TensorBoard profiler
// plugin's Overview page (pytorch/kineto, tb_plugin/torch_tb_profiler/
// profiler/event_parser.py `ProfileRole`, overall_parser.py `OverallParser`):
//
//   Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other
//
// Each category is a union of time ranges over the whole rank:
//   Kernel         kernels that are not communication
//   Memcpy/Memset  gpu_memcpy / gpu_memset
//   Communication  communication kernels (NCCL/RCCL/HCCL names, or launched by a
//                  collective op) and host collective ops (op_roles.h:
//                  "nccl:all_reduce", "gloo:broadcast", "c10d::allreduce_", ...)
//   Runtime        cuda_runtime / cuda_driver calls (and their HIP/NPU twins)
//   DataLoader     "enumerate(DataLoader)#...__next__", "enumerate(DataPipe)#..."
//   CPU Exec       every other cpu_op and user_annotation (not ProfilerStep#N)
//   Other          the rest of the step
// Time covered by several goes to the first in that order (the plugin's
// OverallParser.Statistics.create_from_range: each role takes what the roles
// before it left of the step), so the eight parts add up to the step exactly.
//
// Two step definitions, both reported:
//   window  ours: the ProfilerStep#N annotation as the host recorded it;
//   plugin  the plugin's (StepParser._update_steps_duration): a step starts at
//           max(its host start, the previous step's end) and ends at the later
//           of its host end and the end of the last device op launched by a
//           runtime call inside its host range; trailing steps that launched
//           nothing (or under 80% of the step before) are dropped ("the
//           profiler may fail to capture all the kernels").
// A trace without ProfilerStep#N is one window over its cpu ops, as in the plugin.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fastenough/analysis/steps.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

enum class StepCategory : uint8_t {
  kKernel, kMemcpy, kMemset, kCommunication, kRuntime, kDataLoader, kCpuExec, kOther,
};
constexpr size_t kStepCategoryCount = 8;
// "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"
const char* StepCategoryName(size_t category);

using CategoryNs = std::array<int64_t, kStepCategoryCount>;
using CategoryMean = std::array<double, kStepCategoryCount>;

struct StepBreakdownRow {
  int64_t number = -1;  // N of ProfilerStep#N; -1 for the whole-trace window
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  CategoryNs ns{};  // sums to end_ns - start_ns
  bool plugin_kept = false;  // false: the plugin drops this step (see above)
  int64_t plugin_start_ns = 0;
  int64_t plugin_end_ns = 0;
  CategoryNs plugin_ns{};
  // The rank's work items in the step, however long they took: the host ops
  // of CPU Exec (any depth) and the kernels that are not communication,
  // counted where they start in the host window. Ranks that run the same op
  // sequence count the same items whatever the scheduler does to their wall
  // time (load-imbalance compares them on host-only jobs); 0 when unknown
  // (a rank summary written before they were counted).
  int64_t work_items = 0;
  // The time the host's own ops (CPU Exec and data loading, any depth, any
  // thread) ran in the step, less each thread's own collectives: on a CPU rank
  // its work even where a collective on another thread overlaps it (gloo's
  // all-reduce runs beside the main thread's matmuls, and `ns` books that
  // instant as communication). -1 when unknown (an older rank summary).
  int64_t host_work_ns = -1;
};

struct StepBreakdown {
  bool whole_trace = false;  // no ProfilerStep#N: one window over the cpu ops
  std::vector<StepBreakdownRow> steps;  // time order, as StepStats::steps
  size_t steady_begin = 0;              // as StepStats::steady_begin
  // Means over the steady steps (NaN when there are none): per category and
  // of the step itself. The plugin's over the steady steps it keeps.
  CategoryMean steady_mean_ns{};
  double steady_mean_step_ns = 0;
  size_t plugin_steady_count = 0;
  CategoryMean plugin_steady_mean_ns{};
  double plugin_steady_mean_step_ns = 0;
  int worst_step = -1;  // index in steps of the longest steady step; -1 none
  // The rank's own work in the steady steps: every category but communication
  // and other, as time ranges (coarsened to at most kMaxWorkIntervals by
  // closing the shortest gaps); what cross-rank turns compare (device_turns.h).
  timeline::IntervalSet steady_work;
};

constexpr size_t kMaxWorkIntervals = 4096;

StepBreakdown AnalyzeStepBreakdown(const trace::EventStore& store, const StepStats& steps);

}  // namespace fastenough::analysis
