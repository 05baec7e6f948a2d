// records.index.json, written by fastenough.record next to its shards
// (python/fastenough/agent/output_recorder.py):
//   {"schema": "fastenough.records/1", "shards": ["records-00000.safetensors", ...],
//    "keys": {"<key>": {"shard", "dtype", "shape", "bytes"}}}
// Checked against the shards read: a shard it names that is missing, or a key
// it lists that no shard holds with that dtype and shape, is bad input (a run
// cut short, or files mixed from two runs), never a silent "missing key".
#pragma once

#include <string>

#include "fastenough/compare/tensor_set.h"
#include "fastenough/util/status.h"

namespace fastenough::compare {

inline constexpr const char* kRecordsIndex = "records.index.json";

// index_path: the file; key_prefix: the prefix of the keys of its folder.
Status CheckRecordsIndex(const std::string& index_path, const std::string& key_prefix,
                         const TensorSet& set);

}  // namespace fastenough::compare
