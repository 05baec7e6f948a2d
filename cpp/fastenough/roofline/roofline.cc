#include "fastenough/roofline/roofline.h"

#include <algorithm>
#include <string>

namespace fastenough::roofline {

const char* BoundName(Bound b) { return b == Bound::kCompute ? "compute" : "memory"; }

StatusOr<RooflinePoint> Evaluate(const OpWork& work, int64_t device_time_ns,
                                 double peak_flop_per_s, double peak_bytes_per_s) {
  if (device_time_ns <= 0) {
    return InvalidArgument("device time must be positive, got " + std::to_string(device_time_ns) +
                           " ns");
  }
  if (!(peak_flop_per_s > 0) || !(peak_bytes_per_s > 0)) {
    return InvalidArgument("peaks must be positive");
  }
  if (!(work.flops > 0) && !(work.bytes > 0)) return InvalidArgument("the op has no work");
  RooflinePoint p;
  p.device_time_s = static_cast<double>(device_time_ns) * 1e-9;
  p.achieved_flop_per_s = work.flops / p.device_time_s;
  p.achieved_bytes_per_s = work.bytes / p.device_time_s;
  p.pct_of_compute_peak = 100.0 * p.achieved_flop_per_s / peak_flop_per_s;
  p.pct_of_memory_peak = 100.0 * p.achieved_bytes_per_s / peak_bytes_per_s;
  p.intensity = work.intensity();
  p.ridge = peak_flop_per_s / peak_bytes_per_s;
  p.bound = work.bytes > 0 && p.intensity < p.ridge ? Bound::kMemory : Bound::kCompute;
  p.time_at_roof_s = std::max(work.flops / peak_flop_per_s, work.bytes / peak_bytes_per_s);
  p.pct_of_roof = 100.0 * p.time_at_roof_s / p.device_time_s;
  return p;
}

}  // namespace fastenough::roofline
