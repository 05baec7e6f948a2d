// Reads the header of a safetensors file (8-byte little-endian length, JSON,
// raw tensor bytes) and adds one TensorRef per tensor, pointing into `file`.
// Every structural problem is a DataLoss naming the file and the byte offset.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/compare/tensor_set.h"
#include "fastenough/util/file_bytes.h"
#include "fastenough/util/status.h"

namespace fastenough::compare {

// key_prefix is prepended to each tensor name (e.g. "rank1/").
Status ReadSafetensors(const std::string& path, const PaddedBuffer& file,
                       std::string_view key_prefix, std::vector<TensorRef>* out);

}  // namespace fastenough::compare
