// Kernel launch statistics: how long a kernel waited after the host asked
// for it. For a kernel with a launching runtime call (cudaLaunchKernel, ...):
//   launch_delay = kernel start - launch call start
//   queue_delay  = kernel start - launch call end   (negative when the kernel
//                  started before the call returned: an empty queue)
// A kernel is "short" when it ran for less time than its launch call took:
// the host cannot keep the device fed with such kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "fastenough/analysis/statistics.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct LaunchStats {
  int64_t kernel_count = 0;    // kernels seen
  int64_t launched_count = 0;  // kernels with a launch call
  Distribution launch_delay;
  Distribution queue_delay;
  Distribution launch_call;  // duration of the launch calls
  int64_t short_kernel_count = 0;
};

// `device_index`: rows of device activity (any order); only kernels count.
LaunchStats AnalyzeLaunches(const trace::EventStore& store,
                            const std::vector<uint32_t>& device_index);

}  // namespace fastenough::analysis
