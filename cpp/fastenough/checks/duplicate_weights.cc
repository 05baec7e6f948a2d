#include "fastenough/checks/duplicate_weights.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace fastenough::checks {

std::vector<std::vector<size_t>> DuplicateCandidates(const std::vector<StorageRow>& rows,
                                                     int64_t min_bytes) {
  std::map<std::pair<int64_t, uint64_t>, std::vector<size_t>> by;
  std::set<std::string> seen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const StorageRow& r = rows[i];
    if (r.nbytes < min_bytes || r.nbytes <= 0) continue;
    // The same storage listed twice (reached from two places) is one storage.
    if (!seen.insert(r.key).second) continue;
    by[{r.nbytes, r.sample_hash}].push_back(i);
  }
  std::vector<std::vector<size_t>> out;
  for (auto& [k, idx] : by) {
    if (idx.size() >= 2) out.push_back(std::move(idx));
  }
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return rows[a[0]].nbytes > rows[b[0]].nbytes;
  });
  return out;
}

}  // namespace fastenough::checks
