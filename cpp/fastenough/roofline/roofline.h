// Where one op sits against a device's roofs, from its modelled work and the
// device time of the kernels it launched (the caller sums them: all of them,
// e.g. a split-K GEMM's main kernel and its reduction kernel, a memset the op
// issued; how overlapping kernels on two streams count is the caller's call).
//
//   achieved FLOP/s = flops / t          achieved bytes/s = bytes / t
//   % of compute roof = 100 * achieved FLOP/s / peak FLOP/s
//   % of memory roof  = 100 * achieved bytes/s / peak bytes/s
//   ridge = peak FLOP/s / peak bytes/s (FLOPs per byte)
//   bound = compute when flops / bytes >= ridge, else memory
//   time at the roof = max(flops / peak FLOP/s, bytes / peak bytes/s)
//   % of roof = 100 * time at the roof / t (the bound side's percentage)
#pragma once

#include <cstdint>

#include "fastenough/roofline/op_work.h"
#include "fastenough/util/status.h"

namespace fastenough::roofline {

enum class Bound : uint8_t { kCompute, kMemory };
const char* BoundName(Bound b);

struct RooflinePoint {
  double device_time_s = 0;
  double achieved_flop_per_s = 0;
  double achieved_bytes_per_s = 0;
  double pct_of_compute_peak = 0;
  double pct_of_memory_peak = 0;
  double intensity = 0;  // FLOPs per byte of the op
  double ridge = 0;      // FLOPs per byte where the roofs meet
  Bound bound = Bound::kMemory;
  double time_at_roof_s = 0;
  double pct_of_roof = 0;
};

// InvalidArgument when the time or a peak is not positive, or the work has
// neither FLOPs nor bytes (an op on empty tensors: nothing to hold to a roof).
StatusOr<RooflinePoint> Evaluate(const OpWork& work, int64_t device_time_ns,
                                 double peak_flop_per_s, double peak_bytes_per_s);

}  // namespace fastenough::roofline
