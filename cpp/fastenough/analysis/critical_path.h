// Lightweight critical path of one rank over its steady steps, as Holistic
// Trace Analysis defines it (hta/analyzers/critical_path_analysis.py, CPGraph;
// docs "Lightweight Critical Path Analysis"): a graph whose nodes are the
// starts and ends of host ops, runtime calls and device ops, and whose edges
// are
//   host      consecutive nodes of one thread's call stack (op start -> first
//             child start -> child end -> ... -> op end), weight = time between
//             them; the wait inside a blocking call (op_roles.h,
//             IsBlockingCallName) weighs 0, the device work it waited for
//             carries that time instead
//   dependency  the end of a top-level op -> the start of the next on the thread, weight 0
//   device    a kernel / memcpy / memset start -> its end, weight = duration
//   launch delay  launch call start -> device op start, when the op's stream
//             had finished everything before the call began (the device waited
//             for the host); weight = the delay
//   kernel gap  previous op on the stream end -> this op start otherwise; weight = the gap
//   sync      device op end -> end of the runtime call that waited for it, weight 0:
//             cuda_sync "Stream Sync" (last op on that stream), "Context Sync"
//             (last op on every stream), "Event Sync" (the op launched on the
//             event's stream last before its cudaEventRecord), "Stream Wait
//             Event" (that op -> the next op launched on the waiting stream,
//             device to device)
// The critical path is the longest path by weight (Kahn order + dynamic
// programming, the DAG longest path networkx computes for HTA).
//
// Where we differ from HTA, and why (docs/trace-depth.md):
//   - the window is the steady steps, not one annotation instance: the first
//     kCriticalPathMaxSteps of them (the graph has two nodes per event, and a
//     long profiler window would cost more than the rest of the analysis);
//     events count when they lie wholly inside it (HTA's clipping);
//   - HTA's queue-length test for launch delays is replaced by "the stream's
//     previous op ended before the launch call began" (what it approximates);
//   - a blocking copy call (cudaMemcpy, hipMemcpyWithStream, ...) gets a sync
//     edge from its own copy, and in traces without cuda_sync events a
//     blocking sync call gets one from the device op that finished last
//     before it returned (HTA adds none and warns that the result is then
//     inaccurate);
//   - negative weights (clock jitter between nested events) count as 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/timeline/interval_set.h"
#include "fastenough/timeline/step_windows.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

enum class PathKind : uint8_t { kHost, kDevice, kLaunchDelay, kKernelGap };
const char* PathKindName(PathKind k);  // "host", "device", "launch_delay", "kernel_gap"

// One weighted edge of the path: [start_ns, end_ns) of `row`'s time.
struct PathSegment {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  PathKind kind = PathKind::kHost;
  int32_t row = -1;  // host: the op it is attributed to (HTA's rule); device: the op;
                     // launch delay: the launched op; kernel gap: the op after the gap
};

struct CriticalPathStream {
  int32_t device = -1;
  int64_t stream = -1;
  int64_t compute_ns = 0;  // non-communication kernels
  int64_t comm_ns = 0;     // communication kernels
  int64_t memcpy_ns = 0;
  int64_t memset_ns = 0;
  int64_t kernel_gap_ns = 0;
  int64_t launch_delay_ns = 0;  // waiting for launches of this stream's ops
};

// An event name on the path, its time summed.
struct CriticalPathItem {
  std::string kind;  // "host", "kernel", "memcpy", "memset", "launch_delay", "kernel_gap"
  std::string name;  // the op's name (launch delay / gap: the op that waited)
  int64_t ns = 0;
  int64_t count = 0;  // segments
};

struct CriticalPathStep {
  int64_t number = -1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t path_ns = 0;  // path time inside the window
  int64_t host_ns = 0;
  int64_t device_ns = 0;
  int64_t launch_delay_ns = 0;
  int64_t kernel_gap_ns = 0;
  int64_t sync_ns = 0;
};

struct CriticalPath {
  // "ok"; "no-events" (nothing in the window); "cycle" (the graph had a
  // cycle: inconsistent timestamps; no path is reported).
  std::string status = "no-events";
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  int64_t window_ns = 0;  // Σ of the windows analysed
  int64_t steady_steps = 0;  // steady windows of the rank; the first kCriticalPathMaxSteps are analysed
  int64_t node_count = 0;
  int64_t edge_count = 0;
  bool cuda_sync_events = false;  // the trace has cuda_sync rows (else syncs are inferred)
  int64_t length_ns = 0;  // Σ path weights = host + device + launch delay + kernel gap
  int64_t host_ns = 0;
  int64_t device_ns = 0;
  int64_t launch_delay_ns = 0;
  int64_t kernel_gap_ns = 0;
  // Path time while the host was blocked in a sync call the path runs through
  // (a part of device + gaps, not added to them).
  int64_t sync_ns = 0;
  std::vector<CriticalPathStream> streams;  // by (device, stream)
  std::vector<CriticalPathItem> top;        // up to kCriticalPathTop, heaviest first
  std::vector<CriticalPathStep> steps;      // one per window analysed
  std::vector<PathSegment> segments;        // time order (not in the JSON)
  timeline::IntervalSet on_path;            // union of the segments (not in the JSON)
};

constexpr size_t kCriticalPathTop = 10;
constexpr size_t kCriticalPathMaxSteps = 32;

// steady: SteadyWindows(); the window runs from the first steady window's
// start to the end of the last one analysed.
CriticalPath AnalyzeCriticalPath(const trace::EventStore& store,
                                 const std::vector<timeline::StepWindow>& steady);

// |path ∩ covered|: the part of the path a set of time (a finding's) covers.
int64_t CriticalPathOverlap(const CriticalPath& path, const timeline::IntervalSet& covered);

}  // namespace fastenough::analysis
