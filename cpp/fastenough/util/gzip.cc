#include "fastenough/util/gzip.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace fastenough {

namespace {

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// Whole-buffer libdeflate; returns false when the caller should fall back to
// streaming (size unknown or wrong, damaged or truncated stream).
bool TryLibdeflate(const uint8_t* data, size_t size, PaddedBuffer* out) {
  if (size < 18) return false;
  uint32_t isize;
  std::memcpy(&isize, data + size - 4, 4);
  // ISIZE is the size mod 2^32 of the last member only; trust it only when it
  // is in the range deflate can produce (ratio <= ~1032) for a single member.
  if (isize == 0 || static_cast<uint64_t>(isize) > static_cast<uint64_t>(size) * 1032 ||
      static_cast<uint64_t>(isize) + 64 < size / 2) {
    return false;
  }
  auto buf = PaddedBuffer::Allocate(isize);
  if (!buf.ok()) return false;
  std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(libdeflate_alloc_decompressor());
  if (!d) return false;
  size_t in_used = 0, out_used = 0;
  libdeflate_result r = libdeflate_gzip_decompress_ex(d.get(), data, size, buf->mutable_data(),
                                                      isize, &in_used, &out_used);
  // A second member (concatenated gzip) makes ISIZE describe only that one.
  if (r != LIBDEFLATE_SUCCESS || in_used != size || out_used != isize) return false;
  *out = std::move(buf).value();
  return true;
}

Status Inflate(const uint8_t* data, size_t size, PaddedBuffer* out, bool* truncated) {
  z_stream zs{};
  if (inflateInit2(&zs, MAX_WBITS + 16) != Z_OK) return Internal("zlib init failed");
  size_t cap = std::max<size_t>(size * 4, 1 << 16);
  auto b = PaddedBuffer::Allocate(cap);
  if (!b.ok()) {
    inflateEnd(&zs);
    return b.status();
  }
  PaddedBuffer buf = std::move(b).value();
  size_t produced = 0, consumed = 0;
  Status status;
  while (true) {
    if (produced == buf.size()) {
      Status s = buf.Resize(buf.size() * 2);
      if (!s.ok()) {
        status = s;
        break;
      }
    }
    // zlib counts in uInt (32 bit): feed at most 1 GiB per call.
    const size_t in_chunk = std::min<size_t>(size - consumed, 1u << 30);
    const size_t out_chunk = std::min<size_t>(buf.size() - produced, 1u << 30);
    zs.next_in = const_cast<Bytef*>(data + consumed);
    zs.avail_in = static_cast<uInt>(in_chunk);
    zs.next_out = reinterpret_cast<Bytef*>(buf.mutable_data() + produced);
    zs.avail_out = static_cast<uInt>(out_chunk);
    int r = inflate(&zs, Z_NO_FLUSH);
    consumed += in_chunk - zs.avail_in;
    produced += out_chunk - zs.avail_out;
    if (r == Z_STREAM_END) {
      // Concatenated members: go on while another gzip header follows.
      if (consumed + 2 <= size && LooksLikeGzip(data + consumed, size - consumed)) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (r == Z_BUF_ERROR && consumed == size) {  // input ran out: cut short
      *truncated = true;
      break;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      if (produced == 0) {
        status = DataLoss(std::string("not a valid gzip stream: ") + (zs.msg ? zs.msg : "error"));
      } else {
        *truncated = true;  // damaged later on: keep what was decompressed
      }
      break;
    }
    if (consumed == size && zs.avail_out != 0) {
      *truncated = true;
      break;
    }
  }
  inflateEnd(&zs);
  if (!status.ok()) return status;
  FE_RETURN_IF_ERROR(buf.Resize(produced));
  *out = std::move(buf);
  return Status::Ok();
}

}  // namespace

StatusOr<PaddedBuffer> GunzipToPadded(const uint8_t* data, size_t size, bool* truncated) {
  *truncated = false;
  PaddedBuffer out;
  if (TryLibdeflate(data, size, &out)) return out;
  FE_RETURN_IF_ERROR(Inflate(data, size, &out, truncated));
  return out;
}

}  // namespace fastenough
