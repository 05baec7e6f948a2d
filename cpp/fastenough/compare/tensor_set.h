// The tensors of one side of a comparison: views into memory-mapped files (or
// into buffers decompressed from an .npz), keyed by the name a reader gave them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fastenough/compare/dtype.h"
#include "fastenough/util/file_bytes.h"

namespace fastenough::compare {

struct TensorRef {
  std::string key;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;  // little-endian, C order, ElementSize * elements bytes
  uint64_t bytes = 0;
  std::string file;  // where it came from, for messages
};

uint64_t ElementCount(const std::vector<int64_t>& shape);

struct TensorSet {
  std::string root;  // the file or directory the tensors were read from
  int files = 0;
  std::vector<TensorRef> tensors;
  // Keep the mappings and decompressed buffers alive as long as the views.
  std::vector<std::unique_ptr<PaddedBuffer>> buffers;
};

}  // namespace fastenough::compare
