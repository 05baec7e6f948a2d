// Reads the header of a .npy array (magic "\x93NUMPY", version, header length,
// a Python dict literal with descr, fortran_order and shape) and returns a view
// of its data. `base` is where `data` starts in the file named by `path` (non-
// zero for a member of an .npz), so errors name offsets in the file itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fastenough/compare/tensor_set.h"
#include "fastenough/util/status.h"

namespace fastenough::compare {

StatusOr<TensorRef> ReadNpy(const std::string& path, const uint8_t* data, size_t size,
                            uint64_t base, std::string key);

}  // namespace fastenough::compare
