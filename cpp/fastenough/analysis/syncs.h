// Host-device synchronisations: the runtime calls that block the host until
// the device catches up, and the CPU ops that cause them. Shapes (Kineto):
//   cpu_op "aten::item" > cpu_op "aten::_local_scalar_dense"
//     > cuda_runtime "cudaMemcpyAsync"   (+ gpu_memcpy "Memcpy DtoH (Device -> Pageable)")
//     > cuda_runtime "cudaStreamSynchronize" (+ cuda_sync "Stream Sync")
//   cuda_runtime "cudaDeviceSynchronize" / "cudaEventSynchronize"
//   cuda_runtime "cudaMemcpy" (synchronous by definition)
// A cudaMemcpyAsync to the host counts only when a synchronisation follows it
// inside the same op (that is what makes it blocking).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct SyncEvent {
  int32_t row = -1;        // the runtime call (or cuda_sync device row without a call)
  int32_t cause_op = -1;   // outermost known causing cpu op (aten::item ...), else innermost op
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // Device idle hole around the end of the wait: the device had drained its
  // queue and stays idle until the host submits again ([start, end) of the
  // hole of the busy union that holds end_ns; empty when the device is busy).
  timeline::Interval idle_after;
};

// True for runtime names that block the host.
bool IsSyncCall(std::string_view name);
// True for CPU ops known to force a synchronisation.
bool IsSyncingOp(std::string_view name);

// Synchronisations of the trace in time order. busy: union of device activity.
std::vector<SyncEvent> FindSyncs(const trace::EventStore& store, const CallTree& tree,
                                 const timeline::IntervalSet& busy);

}  // namespace fastenough::analysis
