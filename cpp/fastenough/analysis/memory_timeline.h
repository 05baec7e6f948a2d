// How memory moved, from the allocator's [memory] events (traces recorded
// with profile_memory=True; EventStore::memory_events quotes their shape):
// per device, allocated bytes over time, the peak and the op that reached it,
// the reserved bytes beside it, and where the bytes went by lifetime.
//
// "Total Allocated" is what live tensors hold; "Total Reserved" is what the
// caching allocator holds from the driver. Reserved minus allocated is cache
// (blocks kept for reuse) and fragmentation, not a leak: the method reports
// both and never adds them.
//
// A Chrome trace does not say whether a block held a parameter, an activation
// or a temporary (PyTorch's own memory timeline needs the execution graph for
// that), so blocks are told apart by what the trace does show, their lifetime:
//   live_at_start     allocated before the trace began (parameters, buffers,
//                     optimizer state, caches): Total Allocated before the
//                     first event minus nothing the trace allocated
//   within_step       allocated and freed inside the same step window
//                     (activations and temporaries of a forward/backward)
//   outlive_step      allocated in a step window and still held when it ended
//                     (gradients, outputs, caches carried to the next step)
//   outside_steps     allocated outside every step window
// Bytes are summed per allocation (a block reused ten times counts ten times).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/analysis/steps.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct MemoryStepRow {
  int64_t number = -1;
  int64_t start_allocated_bytes = -1;  // at the window's start; -1 unknown
  int64_t peak_allocated_bytes = -1;
  int64_t end_allocated_bytes = -1;
  int64_t peak_reserved_bytes = -1;
  int64_t alloc_count = 0;
  int64_t alloc_bytes = 0;
};

struct MemoryTimeline {
  int64_t device_type = 0;   // c10::DeviceType: 0 CPU, 1 CUDA, ...
  int64_t device_id = -1;
  std::string device;        // "cuda:0", "cpu", "type8:0"
  int64_t capacity_bytes = -1;  // deviceProperties totalGlobalMem (CUDA); -1 unknown
  int64_t event_count = 0;
  int64_t alloc_count = 0;
  int64_t free_count = 0;
  int64_t first_ts_ns = 0;
  int64_t last_ts_ns = 0;
  int64_t start_allocated_bytes = -1;  // before the first event; -1 unknown
  int64_t end_allocated_bytes = -1;
  int64_t end_reserved_bytes = -1;
  int64_t peak_allocated_bytes = -1;
  int64_t peak_ts_ns = 0;
  int64_t reserved_at_peak_bytes = -1;
  std::string peak_op;   // innermost cpu op on the event's thread at the peak; "" none
  int64_t peak_reserved_bytes = -1;
  // Lifetime classes (see above), bytes summed per allocation.
  int64_t live_at_start_bytes = -1;
  int64_t within_step_bytes = 0;
  int64_t within_step_count = 0;
  int64_t outlive_step_bytes = 0;
  int64_t outlive_step_count = 0;
  int64_t outside_steps_bytes = 0;
  int64_t outside_steps_count = 0;
  std::vector<MemoryStepRow> steps;  // one per StepStats step
  // Allocated bytes over time, at most kMemoryTimelinePoints points: the
  // maximum of each equal slice of [first_ts, last_ts] (ts = slice start).
  std::vector<std::pair<int64_t, int64_t>> timeline;
};

constexpr size_t kMemoryTimelinePoints = 120;

// One entry per (device type, device id) seen, CUDA-like devices first, then CPU.
std::vector<MemoryTimeline> AnalyzeMemory(const trace::EventStore& store, const StepStats& steps);

}  // namespace fastenough::analysis
