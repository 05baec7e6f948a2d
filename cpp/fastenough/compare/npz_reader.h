// Reads an .npz (a zip archive of .npy members, stored or deflate-compressed,
// zip64 included, as numpy's savez / savez_compressed write it). Stored members
// are viewed in place; deflated ones are inflated with libdeflate into buffers
// appended to `buffers`, and their CRC-32 is checked.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/compare/tensor_set.h"
#include "fastenough/util/file_bytes.h"
#include "fastenough/util/status.h"

namespace fastenough::compare {

// Keys are key_prefix + member name without ".npy".
Status ReadNpz(const std::string& path, const PaddedBuffer& file, std::string_view key_prefix,
               std::vector<TensorRef>* out, std::vector<std::unique_ptr<PaddedBuffer>>* buffers);

}  // namespace fastenough::compare
