#include "fastenough/util/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "fastenough/util/gzip.h"

namespace fastenough {

namespace {
size_t PageSize() {
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}
size_t RoundUpToPage(size_t n) { return (n + PageSize() - 1) / PageSize() * PageSize(); }

std::string FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO or pipe";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}
}  // namespace

PaddedBuffer::~PaddedBuffer() { Reset(); }

void PaddedBuffer::Reset() {
  if (data_ != nullptr) munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = released_ = 0;
  file_backed_ = false;
}

PaddedBuffer::PaddedBuffer(PaddedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      mapped_(std::exchange(o.mapped_, 0)),
      file_backed_(std::exchange(o.file_backed_, false)),
      released_(std::exchange(o.released_, 0)) {}

PaddedBuffer& PaddedBuffer::operator=(PaddedBuffer&& o) noexcept {
  if (this != &o) {
    Reset();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, 0);
    file_backed_ = std::exchange(o.file_backed_, false);
    released_ = std::exchange(o.released_, 0);
  }
  return *this;
}

StatusOr<PaddedBuffer> PaddedBuffer::Allocate(size_t size) {
  PaddedBuffer b;
  const size_t bytes = RoundUpToPage(size + kPadding);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    // Input too large for this machine: an input error, not a bug.
    return ResourceExhausted("too large: cannot allocate " + std::to_string(bytes) + " bytes (" +
                             std::strerror(errno) + ")");
  }
  b.data_ = static_cast<char*>(p);
  b.size_ = size;
  b.mapped_ = bytes;
  return b;
}

PaddedBuffer PaddedBuffer::CopyOf(std::string_view text) {
  auto b = Allocate(text.size());
  if (!b.ok()) return PaddedBuffer();
  if (!text.empty()) std::memcpy(b->data_, text.data(), text.size());
  return std::move(b).value();
}

StatusOr<PaddedBuffer> PaddedBuffer::MapFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO that nobody writes to would otherwise wait
  // forever; the kind of file is checked right after, on the descriptor.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound(path + ": no such file");
    return InvalidArgument(path + ": cannot open: " + std::strerror(err));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return InvalidArgument(path + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return InvalidArgument(path + ": not a regular file (" + FileKind(st.st_mode) +
                           "); save it to a file first");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  auto buf = Allocate(size);
  if (!buf.ok()) {
    close(fd);
    return buf.status();
  }
  if (size > 0) {
    // Map the file over the start of the anonymous region: the tail of the
    // file's last page reads as zeros and the pages after it stay anonymous
    // zeros, so the padding is there without copying the file.
    void* p = mmap(buf->data_, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                   fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      close(fd);
      return InvalidArgument(path + ": cannot map: " + std::strerror(err));
    }
    madvise(buf->data_, size, MADV_SEQUENTIAL);
    buf->file_backed_ = true;
  }
  close(fd);
  return buf;
}

Status PaddedBuffer::Resize(size_t new_size) {
  const size_t need = RoundUpToPage(new_size + kPadding);
  if (data_ == nullptr) {
    auto b = Allocate(new_size);
    if (!b.ok()) return b.status();
    *this = std::move(b).value();
    return Status::Ok();
  }
  if (need > mapped_) {
    void* p = mremap(data_, mapped_, need, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) {
      return ResourceExhausted("too large: cannot grow a buffer to " + std::to_string(need) +
                               " bytes (" + std::strerror(errno) + ")");
    }
    data_ = static_cast<char*>(p);
    mapped_ = need;
  }
  if (new_size < size_) std::memset(data_ + new_size, 0, std::min(size_ - new_size, kPadding));
  size_ = new_size;
  std::memset(data_ + size_, 0, kPadding);
  return Status::Ok();
}

void PaddedBuffer::ReleaseBefore(size_t offset) {
  if (data_ == nullptr) return;
  const size_t page = PageSize();
  size_t end = std::min(offset, size_) / page * page;
  // Never release in small steps: the syscall is not free.
  if (end <= released_ + (8u << 20)) return;
  madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

StatusOr<PaddedBuffer> ReadFileBytes(const std::string& path, uint64_t* file_bytes,
                                     bool* gzip_truncated) {
  return ReadFileBytes(path, file_bytes, gzip_truncated, GunzipOptions{});
}

StatusOr<PaddedBuffer> ReadFileBytes(const std::string& path, uint64_t* file_bytes,
                                     bool* gzip_truncated, const GunzipOptions& gunzip) {
  *gzip_truncated = false;
  auto mapped = PaddedBuffer::MapFile(path);
  if (!mapped.ok()) return mapped.status();
  *file_bytes = mapped->size();
  const auto* bytes = reinterpret_cast<const uint8_t*>(mapped->data());
  if (!LooksLikeGzip(bytes, mapped->size())) return mapped;
  auto out = GunzipToPadded(bytes, mapped->size(), gzip_truncated, gunzip);
  if (!out.ok()) return Status(out.status().code(), path + ": " + out.status().message());
  return out;
}

}  // namespace fastenough
