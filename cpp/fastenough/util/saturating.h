// Sums of figures a trace gives (allocation sizes, durations) that must not
// wrap: fifty allocations of 2^63-1 bytes once summed to -50. A sum that
// would leave int64 stays at its end instead; the inputs that can get there
// are counted as unusable by the reader long before (trace/counters.h).
#pragma once

#include <cstdint>
#include <limits>

namespace fastenough {

inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace fastenough
