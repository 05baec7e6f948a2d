// Device time per kernel name (all kernels of the rank, heaviest first); the
// report keeps the top 20 after merging ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct KernelRow {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;  // sum of durations (overlaps between streams counted twice)
  double mean_ns = 0;
  // Time any instance of it ran: the union of its instances on each device,
  // summed over devices (and ranks). Instances that overlap (two streams, or
  // a damaged trace's repeats on one stream) count once, so it is at most the
  // devices' busy time.
  int64_t busy_ns = 0;
  double share_of_busy = 0;  // busy_ns / device busy time of the rank(s): in [0, 1]
};

// Aggregates the kernels among `device_index` by name; busy_ns is the summed
// device busy time used for share_of_busy. Sorted by total_ns desc, then name.
std::vector<KernelRow> AggregateKernels(const trace::EventStore& store,
                                        const std::vector<uint32_t>& device_index,
                                        int64_t busy_ns);

// Sorts rows by total_ns desc (ties by name) and keeps the first `limit`.
void SortAndTrimKernels(std::vector<KernelRow>& rows, size_t limit);

}  // namespace fastenough::analysis
