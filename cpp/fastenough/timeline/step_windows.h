// Step windows: the ranges of "ProfilerStep#N" slices that torch.profiler's
// schedule writes around each training/inference step, e.g.
//   {"ph":"X","cat":"user_annotation","name":"ProfilerStep#12","ts":...,"dur":...}
// Any kind is accepted (old traces use cpu_op / Operator), but a step number
// seen twice (a host range and its gpu_user_annotation mirror) counts once:
// the host range wins because it bounds what the program asked for.
#pragma once

#include <cstdint>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::timeline {

struct StepWindow {
  int64_t number = -1;  // N of "ProfilerStep#N"; -1 if the suffix is not a number
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t row = 0;  // the slice in the store
  int64_t dur_ns() const { return end_ns - start_ns; }
};

// Sorted by start time.
std::vector<StepWindow> FindStepWindows(const trace::EventStore& store);

}  // namespace fastenough::timeline
