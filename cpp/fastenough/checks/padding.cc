#include "fastenough/checks/padding.h"

#include <algorithm>

namespace fastenough::checks {

PaddingSummary SummarisePadding(const std::vector<PaddedBatch>& batches) {
  PaddingSummary s;
  std::vector<int64_t> all;
  std::vector<size_t> sizes;
  for (const PaddedBatch& b : batches) {
    if (b.lengths.empty()) continue;
    ++s.batches;
    sizes.push_back(b.lengths.size());
    int64_t longest = 0;
    for (int64_t len : b.lengths) {
      int64_t l = std::clamp<int64_t>(len, 0, b.width);
      s.real_tokens += l;
      longest = std::max(longest, l);
      all.push_back(l);
    }
    s.rows += static_cast<int64_t>(b.lengths.size());
    s.positions += static_cast<int64_t>(b.lengths.size()) * b.width;
    s.width_squares += static_cast<int64_t>(b.lengths.size()) * b.width * b.width;
    s.dynamic_positions += static_cast<int64_t>(b.lengths.size()) * longest;
  }
  // Bucketing: the same rows sorted by length and cut into batches of the run's
  // own sizes (largest first), each padded to its longest row. Sorting makes the
  // rows of a batch as alike as the data allows: with batches all of one size
  // this is the best bucketing, for positions and for squared widths alike.
  // Where the sizes differ another order of the sizes can do better (sizes 2,
  // 2, 1, rows 1 5 5 9 9: 37 positions largest first, 29 smallest first), and
  // the bound of padding.h is relative to this bucketing.
  std::sort(all.begin(), all.end());
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  size_t at = 0;
  for (size_t n : sizes) {
    size_t end = std::min(all.size(), at + n);
    if (end > at) {
      const int64_t longest = all[end - 1];
      s.bucketed_positions += static_cast<int64_t>(end - at) * longest;
      s.bucketed_width_squares += static_cast<int64_t>(end - at) * longest * longest;
    }
    at = end;
  }
  if (s.positions > 0) {
    s.padded_share = 1.0 - static_cast<double>(s.real_tokens) / static_cast<double>(s.positions);
    s.bucketed_saving_share =
        1.0 - static_cast<double>(s.bucketed_positions) / static_cast<double>(s.positions);
  }
  if (s.width_squares > 0) {
    s.bucketed_square_saving_share = 1.0 - static_cast<double>(s.bucketed_width_squares) /
                                               static_cast<double>(s.width_squares);
  }
  s.saving_bound_share =
      std::max({0.0, s.bucketed_saving_share, s.bucketed_square_saving_share});
  return s;
}

}  // namespace fastenough::checks
