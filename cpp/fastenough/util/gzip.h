// gzip decompression into a PaddedBuffer: libdeflate on the whole buffer when
// the ISIZE trailer (uncompressed size mod 2^32) is plausible, else zlib
// streaming inflate, which also copes with > 4 GiB outputs and with streams cut
// short (what was decompressed so far is kept and *truncated is set).
//
// A compressed file is bounded before it is inflated (a gzip bomb: a few MiB
// that inflate to GBs): GunzipOptions states how far it may expand, and a check
// of its first bytes refuses text the caller cannot parse after the first
// block rather than after inflating all of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "fastenough/util/file_bytes.h"
#include "fastenough/util/status.h"

namespace fastenough {

inline bool LooksLikeGzip(const uint8_t* data, size_t size) {
  return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

struct GunzipOptions {
  // The inflated text may hold at most max(max_ratio * compressed size,
  // min_limit_bytes) bytes; beyond that, kResourceExhausted. 0: no limit.
  uint64_t max_ratio = 0;
  uint64_t min_limit_bytes = 0;
  // How to raise the limit, said in the error (e.g. the environment variable).
  std::string raise_hint;
  // Called with the first bytes inflated (up to 64 KiB, fewer at the stream's
  // end) before anything else is: a non-ok Status is returned as it is.
  std::function<Status(std::string_view head)> check_head;

  uint64_t LimitFor(uint64_t compressed) const;
};

StatusOr<PaddedBuffer> GunzipToPadded(const uint8_t* data, size_t size, bool* truncated,
                                      const GunzipOptions& options = {});

}  // namespace fastenough
