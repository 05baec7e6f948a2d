// libFuzzer target: any byte string through ReadNpz (zip directory, zip64,
// stored and deflated members, CRC) must give a Status or views that lie in
// the file or in the buffers it inflated; never a crash, a sanitizer report,
// or memory beyond deflate's own bound (the fuzzer's -rss_limit_mb).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "fastenough/compare/npz_reader.h"

namespace {
bool Inside(const uint8_t* p, uint64_t n, const char* base, size_t size) {
  const auto* b = reinterpret_cast<const uint8_t*>(base);
  return p >= b && p + n <= b + size;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using fastenough::PaddedBuffer;
  PaddedBuffer file =
      PaddedBuffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<fastenough::compare::TensorRef> out;
  std::vector<std::unique_ptr<PaddedBuffer>> buffers;
  if (!fastenough::compare::ReadNpz("fuzz.npz", file, "", &out, &buffers).ok()) return 0;
  for (const auto& t : out) {
    bool ok = Inside(t.data, t.bytes, file.data(), file.size());
    for (const auto& b : buffers) ok = ok || Inside(t.data, t.bytes, b->data(), b->size());
    if (!ok) __builtin_trap();
    if (t.bytes > 0) (void)(t.data[0] + t.data[t.bytes - 1]);
  }
  return 0;
}
