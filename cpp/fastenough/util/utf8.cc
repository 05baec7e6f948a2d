#include "fastenough/util/utf8.h"

namespace fastenough {

std::optional<size_t> FirstInvalidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

}  // namespace fastenough
