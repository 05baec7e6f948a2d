// Host time per CPU op name (cpu_op slices): inclusive total and self time.
// self = own duration minus the time of its direct child cpu_ops on the same
// thread (pid, tid); a child that sticks out of its parent (clock jitter) is
// clipped to the parent. Recursive names (aten::linear -> aten::addmm) each
// count their own inclusive time, as in the PyTorch profiler's tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct OpRow {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;
};

// All cpu ops of the rank aggregated by name, sorted by total_ns desc.
std::vector<OpRow> AggregateOps(const trace::EventStore& store);

// Keep the `limit` heaviest by total_ns (by_self: by self_ns); ties by name.
void SortAndTrimOps(std::vector<OpRow>& rows, size_t limit, bool by_self);

}  // namespace fastenough::analysis
