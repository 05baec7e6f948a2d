// A bump allocator for one parsed file: nodes, node lists and decoded strings.
// Reset() keeps the blocks, so a thread that parses many files allocates only
// while its largest file grows the arena.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <algorithm>
#include <string_view>
#include <vector>

namespace fastenough::pysrc {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* Allocate(size_t bytes, size_t align = alignof(std::max_align_t)) {
    size_t at = (used_ + align - 1) & ~(align - 1);
    if (current_ >= blocks_.size() || at + bytes > block_sizes_[current_]) {
      NextBlock(bytes + align);
      at = (used_ + align - 1) & ~(align - 1);
    }
    used_ = at + bytes;
    return blocks_[current_].get() + at;
  }

  template <typename T, typename... Args>
  T* New(Args&&... args) {
    return new (Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  std::string_view Copy(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(Allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  // Forget every allocation; keep the memory for the next file.
  void Reset() {
    current_ = 0;
    used_ = 0;
  }

  size_t capacity() const {
    size_t n = 0;
    for (size_t s : block_sizes_) n += s;
    return n;
  }

 private:
  void NextBlock(size_t at_least) {
    // Use the next kept block when it is large enough, else insert a new one.
    ++current_;
    if (blocks_.empty()) current_ = 0;
    while (current_ < blocks_.size() && block_sizes_[current_] < at_least) ++current_;
    if (current_ >= blocks_.size()) {
      size_t size = std::max<size_t>(kBlock, at_least);
      blocks_.emplace_back(new char[size]);
      block_sizes_.push_back(size);
      current_ = blocks_.size() - 1;
    }
    used_ = 0;
  }

  static constexpr size_t kBlock = 256 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::vector<size_t> block_sizes_;
  size_t current_ = 0;
  size_t used_ = 0;
};

}  // namespace fastenough::pysrc
