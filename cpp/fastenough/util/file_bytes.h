// The bytes of one input file, decompressed when it is gzip, followed by
// kPadding readable zero bytes so that simdjson can parse any slice of the
// text in place (simdjson reads up to SIMDJSON_PADDING bytes past the end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fastenough/util/status.h"

namespace fastenough {

struct GunzipOptions;  // gzip.h

class PaddedBuffer {
 public:
  static constexpr size_t kPadding = 64;  // == SIMDJSON_PADDING

  PaddedBuffer() = default;
  ~PaddedBuffer();
  PaddedBuffer(PaddedBuffer&& other) noexcept;
  PaddedBuffer& operator=(PaddedBuffer&& other) noexcept;
  PaddedBuffer(const PaddedBuffer&) = delete;
  PaddedBuffer& operator=(const PaddedBuffer&) = delete;

  // Zero-filled anonymous memory of `size` bytes plus padding.
  static StatusOr<PaddedBuffer> Allocate(size_t size);
  // A read-only private mapping of a whole file plus zero padding.
  static StatusOr<PaddedBuffer> MapFile(const std::string& path);
  // A copy of `text` (tests, fuzzing).
  static PaddedBuffer CopyOf(std::string_view text);

  const char* data() const { return data_; }
  char* mutable_data() { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return mapped_ - kPadding; }
  std::string_view view() const { return {data_, size_}; }

  // Grows (or shrinks) the usable size; new bytes and the padding are zero.
  Status Resize(size_t new_size);
  // Gives the pages wholly below `offset` back to the OS: a reader that has
  // consumed the text up to there never reads it again, and this keeps peak
  // memory near the size of the parsed columns rather than text + columns.
  void ReleaseBefore(size_t offset);

 private:
  void Reset();
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // bytes mapped at data_ (>= size_ + kPadding)
  bool file_backed_ = false;
  size_t released_ = 0;
};

// The one rule every input file follows (traces, tensor files, lint's
// sources): opened without blocking (O_NONBLOCK: a FIFO nobody writes to
// would otherwise wait in open() forever) and read only when it is a regular
// file (a device such as /dev/zero never ends; a symlink counts as what it
// points at). On success *fd is open (the caller closes it) and *size is the
// size on disk. The error's message is the reason alone ("no such file", "not
// a regular file (a character device)"): callers name the file their way.
Status OpenRegularFile(const std::string& path, int* fd, uint64_t* size);

// The whole of a regular file of at most max_bytes (OpenRegularFile's rules),
// into *out; a larger file is refused unread ("too large: ... bytes, more
// than the limit of ..."). The message is the reason alone, as above.
Status ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string* out);

// Reads `path`; a gzip file (magic bytes 1f 8b, whatever its name) is
// decompressed. *file_bytes gets the size on disk; *gzip_truncated is set when
// the gzip stream ended early (the bytes decompressed so far are returned).
StatusOr<PaddedBuffer> ReadFileBytes(const std::string& path, uint64_t* file_bytes,
                                     bool* gzip_truncated);
// Same, inflating a gzip file within `gunzip`'s limits (gzip.h).
StatusOr<PaddedBuffer> ReadFileBytes(const std::string& path, uint64_t* file_bytes,
                                     bool* gzip_truncated, const GunzipOptions& gunzip);

}  // namespace fastenough
