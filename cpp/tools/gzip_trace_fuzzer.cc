// libFuzzer target for gzip trace input: the bytes are read as a .json.gz
// (seeded with gzip traces, so mutations damage the deflate stream, the
// header, the trailer and concatenated members). ParseTrace must give a Status
// or a store; the inflate must stay within the stated limit (256 MiB at least
// is allowed: the fuzzer's -rss_limit_mb catches a runaway) and never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fastenough/trace/load_trace.h"
#include "fastenough/util/gzip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Straight through the inflater, with a small limit: the limit's own path.
  fastenough::GunzipOptions small;
  small.max_ratio = 4;
  small.min_limit_bytes = 1 << 16;
  bool truncated = false;
  auto raw = fastenough::GunzipToPadded(data, size, &truncated, small);
  if (raw.ok() && raw->size() > small.LimitFor(size)) __builtin_trap();

  // And as the trace reader takes a file: gzip when the magic bytes say so.
  auto store = fastenough::trace::ParseTrace(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (store.ok()) {
    const auto& s = store.value();
    for (size_t i = 0; i < s.size(); ++i) (void)s.name_of(i);
  }
  return 0;
}
