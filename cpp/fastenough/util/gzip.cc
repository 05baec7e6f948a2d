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

Status TooLarge(uint64_t limit, uint64_t compressed, const GunzipOptions& options) {
  return ResourceExhausted(
      "too large: inflates to more than " + std::to_string(limit) + " bytes from " +
      std::to_string(compressed) + " compressed (the limit: " + std::to_string(options.max_ratio) +
      " times the size on disk, at least " + std::to_string(options.min_limit_bytes) +
      " bytes), refused as a likely gzip bomb" +
      (options.raise_hint.empty() ? std::string() : "; " + options.raise_hint));
}

// The first bytes of the stream (at most `want`), inflated on their own so that
// check_head sees them before the whole stream is inflated.
std::string InflateHead(const uint8_t* data, size_t size, size_t want) {
  z_stream zs{};
  if (inflateInit2(&zs, MAX_WBITS + 16) != Z_OK) return {};
  std::string head(want, '\0');
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
  zs.next_out = reinterpret_cast<Bytef*>(head.data());
  zs.avail_out = static_cast<uInt>(want);
  while (zs.avail_out > 0 && inflate(&zs, Z_NO_FLUSH) == Z_OK) {
  }
  head.resize(want - zs.avail_out);
  inflateEnd(&zs);
  return head;
}

// Whole-buffer libdeflate; returns false when the caller should fall back to
// streaming (size unknown or wrong, damaged or truncated stream).
bool TryLibdeflate(const uint8_t* data, size_t size, uint64_t limit, PaddedBuffer* out) {
  if (size < 18) return false;
  uint32_t isize;
  std::memcpy(&isize, data + size - 4, 4);
  if (limit != 0 && isize > limit) return false;
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

Status Inflate(const uint8_t* data, size_t size, PaddedBuffer* out, bool* truncated,
               const GunzipOptions& options) {
  const uint64_t limit = options.LimitFor(size);
  z_stream zs{};
  if (inflateInit2(&zs, MAX_WBITS + 16) != Z_OK) return Internal("zlib init failed");
  size_t cap = std::max<size_t>(size * 4, 1 << 16);
  if (limit != 0) cap = std::min<uint64_t>(cap, limit + 1);
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
      // One byte past the limit is room enough to know that it was passed.
      if (limit != 0 && produced > limit) {
        status = TooLarge(limit, size, options);
        break;
      }
      const uint64_t grown = limit != 0 ? std::min<uint64_t>(buf.size() * 2, limit + 1)
                                        : buf.size() * 2;
      Status s = buf.Resize(grown);
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

uint64_t GunzipOptions::LimitFor(uint64_t compressed) const {
  if (max_ratio == 0) return 0;
  const unsigned __int128 by_ratio = static_cast<unsigned __int128>(max_ratio) * compressed;
  const uint64_t capped = by_ratio > UINT64_MAX / 2 ? UINT64_MAX / 2 : static_cast<uint64_t>(by_ratio);
  return std::max(capped, min_limit_bytes);
}

StatusOr<PaddedBuffer> GunzipToPadded(const uint8_t* data, size_t size, bool* truncated,
                                      const GunzipOptions& options) {
  *truncated = false;
  if (options.check_head) {
    FE_RETURN_IF_ERROR(options.check_head(InflateHead(data, size, 64 << 10)));
  }
  // ISIZE past the limit goes to the streaming inflate, which stops at the
  // limit: the trailer of a truncated file is any 4 bytes, so it proves nothing.
  PaddedBuffer out;
  if (TryLibdeflate(data, size, options.LimitFor(size), &out)) return out;
  FE_RETURN_IF_ERROR(Inflate(data, size, &out, truncated, options));
  return out;
}

}  // namespace fastenough
