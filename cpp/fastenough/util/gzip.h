// gzip decompression into a PaddedBuffer: libdeflate on the whole buffer when
// the ISIZE trailer (uncompressed size mod 2^32) is plausible, else zlib
// streaming inflate, which also copes with > 4 GiB outputs and with streams cut
// short (what was decompressed so far is kept and *truncated is set).
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastenough/util/file_bytes.h"
#include "fastenough/util/status.h"

namespace fastenough {

inline bool LooksLikeGzip(const uint8_t* data, size_t size) {
  return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

StatusOr<PaddedBuffer> GunzipToPadded(const uint8_t* data, size_t size, bool* truncated);

}  // namespace fastenough
