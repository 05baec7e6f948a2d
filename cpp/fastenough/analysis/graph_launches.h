// CUDA / HIP graph replays and torch.compile'd regions.
//
// A replay is one host call whose kernels all carry its correlation id:
//   {"cat": "cuda_runtime", "name": "cudaGraphLaunch", "args": {"correlation": 869004, ...}}
//   {"cat": "kernel", "name": "triton__0d1d2d3d4d5d6d", "args": {"correlation": 869004, ...}}
// EventStore::Finalize links them like any launch, so their kernels count as
// device work. Some profilers record the replay call but not its kernels
// (pytorch/pytorch#186026, HTA #290, TraceLens #728): the device then looks
// idle while it runs the graph. A replay counts as recorded without its
// kernels when no device op has its correlation although the trace recorded
// device activity after the call started; the report then says the idle
// figures are not real instead of reporting the false idle time.
//
// Compiled regions: Inductor's Triton kernels (and any other kernel) are
// attributed to the innermost torch.compile region (op_roles.h,
// IsCompiledRegionName) around their launch call on its thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct GraphStats {
  int64_t launch_count = 0;             // graph launch calls
  int64_t launches_with_activity = 0;   // with at least one device op linked
  int64_t launches_without_activity = 0;  // of which, none although the device was recorded later
  int64_t device_op_count = 0;          // device ops linked to graph launches
  int64_t kernel_count = 0;
  int64_t device_ns = 0;                // Σ durations of those ops
  bool kernels_missing() const { return launches_without_activity > 0; }
};

struct CompiledRegionRow {
  std::string name;
  int64_t instances = 0;     // host ranges with that name
  int64_t kernel_count = 0;  // kernels launched inside them
  int64_t triton_kernel_count = 0;
  int64_t kernel_ns = 0;
};

struct CompiledRegions {
  std::vector<CompiledRegionRow> regions;  // by kernel_ns desc, then name
  int64_t triton_kernel_count = 0;         // every Triton kernel of the trace
  int64_t triton_kernels_outside = 0;      // launched outside any compiled region
};

GraphStats AnalyzeGraphLaunches(const trace::EventStore& store);
CompiledRegions AnalyzeCompiledRegions(const trace::EventStore& store);

}  // namespace fastenough::analysis
