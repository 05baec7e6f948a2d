// libFuzzer target: any byte string through ReadSafetensors must give a Status
// or tensor views that lie inside the file, tile its data without overlap (the
// reference loader's rule) and have distinct names; never a crash or a
// sanitizer report.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastenough/compare/safetensors_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using fastenough::PaddedBuffer;
  PaddedBuffer file =
      PaddedBuffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<fastenough::compare::TensorRef> out;
  if (!fastenough::compare::ReadSafetensors("fuzz.safetensors", file, "", &out).ok()) return 0;
  const auto* begin = reinterpret_cast<const uint8_t*>(file.data());
  std::set<std::string> names;
  std::vector<std::pair<const uint8_t*, const uint8_t*>> spans;
  for (const auto& t : out) {
    if (t.data < begin || t.data + t.bytes > begin + file.size()) __builtin_trap();
    if (!names.insert(t.key).second) __builtin_trap();
    spans.emplace_back(t.data, t.data + t.bytes);
    if (t.bytes > 0) (void)(t.data[0] + t.data[t.bytes - 1]);  // readable, ASan checks
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) __builtin_trap();
  }
  return 0;
}
