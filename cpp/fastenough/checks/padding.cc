#include "fastenough/checks/padding.h"

#include <algorithm>
#include <limits>
#include <map>

namespace fastenough::checks {

namespace {

// Past this many orders of the batch sizes to search (the product over the
// distinct sizes of their counts + 1), the least cost of any batching stands
// in: every row padded to nothing (its own length). It runs in the program at
// its exit (agent/checks/padding.py): 2^19 int64 are 4 MiB, for a while.
constexpr size_t kMaxBucketingStates = size_t{1} << 19;

// The least sum over batches of (rows of the batch) x cost(its longest row),
// over cuts of the sorted rows into batches of the run's sizes in any order.
// For one order of the sizes, contiguous runs of the sorted rows are best (an
// exchange argument); the order matters where the sizes differ (rows 1 5 5 9 9
// in batches of 2, 2 and 1: 37 positions with the short batch last, 29 with it
// first), and is searched by dynamic programming over how many batches of each
// distinct size come first: the last batch of such a prefix holds its longest
// row, sorted[rows - 1], whatever its size. A loader's batches have one size,
// or two (its short last batch, once per epoch): few states.
template <typename Cost>
int64_t LeastBucketedCost(const std::vector<int64_t>& sorted, const std::vector<size_t>& sizes,
                          Cost cost) {
  std::map<size_t, size_t> count;
  for (size_t n : sizes) ++count[n];
  std::vector<size_t> size_of, count_of, stride;
  size_t states = 1;
  bool too_many = false;
  for (const auto& entry : count) {
    size_of.push_back(entry.first);
    count_of.push_back(entry.second);
    stride.push_back(states);
    if (states > kMaxBucketingStates / (entry.second + 1)) too_many = true;
    if (!too_many) states *= entry.second + 1;
  }
  if (too_many) {
    int64_t least = 0;
    for (int64_t len : sorted) least += cost(len);
    return least;
  }
  constexpr int64_t kUnset = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> best(states, kUnset);
  best[0] = 0;
  std::vector<size_t> used(size_of.size(), 0);  // the state's digits: batches of each size
  size_t rows = 0;
  for (size_t state = 1; state < states; ++state) {
    for (size_t i = 0;; ++i) {  // the next state in mixed radix
      if (used[i] < count_of[i]) {
        ++used[i];
        rows += size_of[i];
        break;
      }
      rows -= used[i] * size_of[i];
      used[i] = 0;
    }
    const int64_t last = cost(sorted[std::min(rows, sorted.size()) - 1]);
    for (size_t i = 0; i < size_of.size(); ++i) {
      if (used[i] == 0 || best[state - stride[i]] == kUnset) continue;
      best[state] = std::min(best[state],
                             best[state - stride[i]] + static_cast<int64_t>(size_of[i]) * last);
    }
  }
  return best[states - 1];
}

}  // namespace

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
  // own sizes, each padded to its longest row, in the order of the sizes that
  // removes the most (LeastBucketedCost): the best a fix with these batch sizes
  // can do, for positions and for squared widths each.
  std::sort(all.begin(), all.end());
  s.bucketed_positions = LeastBucketedCost(all, sizes, [](int64_t len) { return len; });
  s.bucketed_width_squares =
      LeastBucketedCost(all, sizes, [](int64_t len) { return len * len; });
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
