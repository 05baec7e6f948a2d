// libFuzzer target: any byte string through ReadNpy must give a Status or a
// view of exactly ElementSize * elements bytes inside the input; never a crash
// or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fastenough/compare/dtype.h"
#include "fastenough/compare/npy_reader.h"
#include "fastenough/util/file_bytes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using fastenough::PaddedBuffer;
  namespace compare = fastenough::compare;
  PaddedBuffer file =
      PaddedBuffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  const auto* bytes = reinterpret_cast<const uint8_t*>(file.data());
  auto ref = compare::ReadNpy("fuzz.npy", bytes, file.size(), 0, "x");
  if (!ref.ok()) return 0;
  const compare::TensorRef& t = ref.value();
  if (t.data < bytes || t.data + t.bytes > bytes + file.size()) __builtin_trap();
  if (t.bytes != compare::ElementCount(t.shape) * compare::ElementSize(t.dtype)) __builtin_trap();
  if (t.bytes > 0) (void)(t.data[0] + t.data[t.bytes - 1]);
  return 0;
}
