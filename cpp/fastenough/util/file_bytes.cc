#include "fastenough/util/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

Status OpenRegularFile(const std::string& path, int* fd, uint64_t* size) {
  // O_NONBLOCK: opening a FIFO that nobody writes to would otherwise wait
  // forever; the kind of file is checked right after, on the descriptor.
  *fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (*fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound("no such file");
    return InvalidArgument(std::string("cannot open: ") + std::strerror(err));
  }
  struct stat st {};
  if (fstat(*fd, &st) != 0) {
    int err = errno;
    close(*fd);
    *fd = -1;
    return InvalidArgument(std::string("cannot stat: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(*fd);
    *fd = -1;
    return InvalidArgument("not a regular file (" + FileKind(st.st_mode) + ")");
  }
  *size = static_cast<uint64_t>(st.st_size);
  return Status::Ok();
}

Status ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string* out) {
  out->clear();
  int fd = -1;
  uint64_t size = 0;
  FE_RETURN_IF_ERROR(OpenRegularFile(path, &fd, &size));
  auto too_large = [&](uint64_t n) {
    return InvalidArgument("too large: " + std::to_string(n) + " bytes, more than the limit of " +
                           std::to_string(max_bytes));
  };
  if (size > max_bytes) {
    close(fd);
    return too_large(size);
  }
  out->reserve(static_cast<size_t>(size));
  // A file that grows while it is read stops at the limit all the same.
  char buf[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      return InvalidArgument(std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    if (out->size() + static_cast<size_t>(n) > max_bytes) {
      close(fd);
      return too_large(out->size() + static_cast<size_t>(n));
    }
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return Status::Ok();
}

StatusOr<PaddedBuffer> PaddedBuffer::MapFile(const std::string& path) {
  int fd = -1;
  uint64_t file_size = 0;
  if (Status st = OpenRegularFile(path, &fd, &file_size); !st.ok()) {
    const bool not_regular = st.message().rfind("not a regular file", 0) == 0;
    return Status(st.code(), path + ": " + st.message() +
                                 (not_regular ? "; save it to a file first" : ""));
  }
  const size_t size = static_cast<size_t>(file_size);
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
