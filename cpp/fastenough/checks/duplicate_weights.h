// Candidate duplicate storages: rows (storage key, bytes, hash of sampled
// bytes) that agree on size and hash. The agent confirms each candidate group
// by a full comparison before it is reported; this only narrows the search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastenough::checks {

struct StorageRow {
  std::string key;  // "cuda:0:0x7f..." : device and untyped storage data_ptr
  int64_t nbytes = 0;
  uint64_t sample_hash = 0;
};

// Groups of row indices (each of size >= 2, keys distinct) with equal nbytes
// and sample_hash; rows under min_bytes are ignored. Groups ordered by
// decreasing nbytes, rows by index.
std::vector<std::vector<size_t>> DuplicateCandidates(const std::vector<StorageRow>& rows,
                                                     int64_t min_bytes);

}  // namespace fastenough::checks
