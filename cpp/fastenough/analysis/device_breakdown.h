// Temporal breakdown of device time and idle-time breakdown per stream, as
// Holistic Trace Analysis (HTA, hta/analyzers/breakdown_analysis.py) defines
// them, computed from one rank's EventStore.
//
// Device level (one entry per device index of kernels / memcpy / memset):
//   span    = first activity start .. last activity end
//   busy    = |union of all activity intervals, all streams|
//   idle    = span - busy
//   compute = |union(compute kernels)|
//   comm    = |union(communication kernels) - compute|   (overlap counts as compute)
//   memcpy  = |union(memcpy) - (compute u comm)|
//   memset  = |union(memset) - (compute u comm u memcpy)|
// so compute + comm + memcpy + memset == busy exactly.
//
// Stream level (HTA's get_idle_time_breakdown): the ops of one stream in time
// order; each positive gap between the end of the previous op and the start of
// the next is
//   host_wait   if the next op's launching runtime call started after the
//               previous op ended (the device waited for the host to submit);
//   kernel_wait else if the gap is shorter than kernel_wait_threshold_ns
//               (HTA's consecutive_kernel_delay = 30; HTA's docs call it 30 ns
//               but HTA 0.5 compares it with gaps in trace units, i.e. µs for
//               Kineto traces, so in effect 30 µs: we default to 30000 ns to
//               give the numbers HTA gives);
//   other       else (cross-stream syncs, events, launch queueing).
// The per-device idle_breakdown is the sum over its streams, as in HTA. It is
// a different quantity from idle_ns: a device with two streams can be busy on
// one while the other has a gap, so the stream gaps may add up to more than
// idle_ns. device_idle partitions idle_ns itself: each gap of the busy union
// (the whole device had nothing to do) is classified by the same rules,
// applied to the op(s) that end the gap, so its parts add up to idle_ns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

enum class GapKind : uint8_t { kHostWait, kKernelWait, kOther };
const char* GapKindName(GapKind k);

struct IdleBreakdown {
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  int64_t total_ns() const { return host_wait_ns + kernel_wait_ns + other_ns; }
  void Add(GapKind k, int64_t ns);
  void Merge(const IdleBreakdown& o);
};

// One idle gap of a stream: the device had nothing on this stream in
// [start_ns, end_ns). prev_row / next_row are the ops around it.
struct StreamGap {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  GapKind kind = GapKind::kOther;
  uint32_t prev_row = 0;
  uint32_t next_row = 0;
  int64_t length() const { return end_ns - start_ns; }
};

struct StreamIdle {
  int64_t stream = -1;
  int64_t op_count = 0;  // kernels + memcpy + memset on the stream
  int64_t start_ns = 0;  // first op start
  int64_t end_ns = 0;    // last op end
  int64_t busy_ns = 0;   // |union of its ops|
  IdleBreakdown idle;    // sum of its gaps by kind
  std::vector<StreamGap> gaps;
  // gaps.size() when they were found; the count outlives the gaps, which a
  // rank summary drops once the detectors have read them (report/rank_summary.h).
  int64_t gap_count = 0;
};

struct DeviceBreakdown {
  int32_t device = -1;
  std::string name;  // from deviceProperties when present
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t span_ns = 0;
  int64_t busy_ns = 0;
  int64_t idle_ns = 0;
  int64_t compute_ns = 0;
  int64_t comm_ns = 0;
  int64_t memcpy_ns = 0;
  int64_t memset_ns = 0;
  int64_t kernel_count = 0;  // kernels only (compute + communication)
  int64_t comm_kernel_count = 0;
  int64_t memcpy_count = 0;
  int64_t memset_count = 0;
  int64_t short_kernel_count = 0;  // kernels shorter than their launch call
  IdleBreakdown idle_breakdown;    // sum of the stream gaps (HTA), not idle_ns
  IdleBreakdown device_idle;       // idle_ns split by cause: sums to idle_ns
  std::vector<StreamIdle> streams;  // sorted by stream id
  timeline::IntervalSet busy;       // the busy union, for windowed questions
};

struct BreakdownOptions {
  // HTA's consecutive_kernel_delay default, as HTA applies it (30 trace µs).
  int64_t kernel_wait_threshold_ns = 30000;
};

// NCCL / RCCL / HCCL collectives: by kernel name (case-insensitive substring),
// or by a category naming communication (NPU / MTIA traces).
bool IsCommunicationKernel(const trace::EventStore& store, size_t row);

// Rows of device activity (kernels, memcpy, memset) ordered by
// (device, stream, start, end): the index every per-device analysis walks.
std::vector<uint32_t> DeviceActivityIndex(const trace::EventStore& store);

// `index` as returned by DeviceActivityIndex. Sorted by device index.
std::vector<DeviceBreakdown> AnalyzeDevices(const trace::EventStore& store,
                                            const std::vector<uint32_t>& index,
                                            const BreakdownOptions& options = {});

}  // namespace fastenough::analysis
