// One side of `fastenough compare`: a run directory (its outputs/), an
// outputs/ folder (every .safetensors, .npy and .npz below it), or one file.
//
// Keys: a safetensors tensor is keyed by its name, a member of an .npz by its
// member name, a lone .npy given as the side is "array"; inside a folder, a
// file in a subfolder prefixes its keys with that subfolder ("rank1/scores"),
// and an .npy or .npz contributes its path without the extension
// ("scores", "batch/logits"). The same key twice on one side is bad input.
#pragma once

#include <string>

#include "fastenough/compare/tensor_set.h"
#include "fastenough/util/status.h"

namespace fastenough::compare {

StatusOr<TensorSet> LoadSide(const std::string& path);

// Reads one file by its magic bytes (\x93NUMPY, PK zip, else safetensors).
Status LoadFile(const std::string& path, const std::string& key_prefix, const std::string& npy_key,
                TensorSet* set);

}  // namespace fastenough::compare
