#include "fastenough/compare/tensor_set.h"

namespace fastenough::compare {

uint64_t ElementCount(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

}  // namespace fastenough::compare
