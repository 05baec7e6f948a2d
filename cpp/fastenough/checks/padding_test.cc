#include "fastenough/checks/padding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <utility>

namespace fastenough::checks {
namespace {

TEST(ChecksPadding, FixedWidthBatchOne) {
  // Batch 1 padded to 8: lengths 2, 8, 4, 2 -> 32 positions, 16 real.
  std::vector<PaddedBatch> b = {{8, {2}}, {8, {8}}, {8, {4}}, {8, {2}}};
  PaddingSummary s = SummarisePadding(b);
  EXPECT_EQ(s.batches, 4);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.positions, 32);
  EXPECT_EQ(s.real_tokens, 16);
  EXPECT_DOUBLE_EQ(s.padded_share, 0.5);
  EXPECT_EQ(s.dynamic_positions, 16);
  EXPECT_EQ(s.bucketed_positions, 16);
  EXPECT_DOUBLE_EQ(s.bucketed_saving_share, 0.5);
}

TEST(ChecksPadding, BucketingSortsRowsAcrossBatches) {
  // Two batches of 2, width 6: {1,6} {5,2}. Dynamic: 2*6 + 2*5 = 22.
  // Sorted 1,2,5,6 -> {1,2} {5,6}: 2*2 + 2*6 = 16. Positions 24, real 14.
  PaddingSummary s = SummarisePadding({{6, {1, 6}}, {6, {5, 2}}});
  EXPECT_EQ(s.positions, 24);
  EXPECT_EQ(s.real_tokens, 14);
  EXPECT_EQ(s.dynamic_positions, 22);
  EXPECT_EQ(s.bucketed_positions, 16);
  EXPECT_DOUBLE_EQ(s.bucketed_saving_share, 1.0 - 16.0 / 24.0);
}

TEST(ChecksPadding, UnequalBatchSizesAndClamp) {
  // Sizes 3 and 1, re-cut in either order: lengths 4,4,4,4 (9 clamped to 4).
  PaddingSummary s = SummarisePadding({{4, {4, 4, 4}}, {4, {9}}, {4, {}}});
  EXPECT_EQ(s.batches, 2);
  EXPECT_EQ(s.positions, 16);
  EXPECT_EQ(s.real_tokens, 16);
  EXPECT_DOUBLE_EQ(s.padded_share, 0.0);
  EXPECT_EQ(s.bucketed_positions, 16);
}

// Issue 37 item 1: the saving is a bound. Worked by hand: width 10, rows
// {10, 4, 2} and {3, 9}. Positions 5 x 10 = 50, real 28. Bucketed (sorted
// 2 3 4 9 10, re-cut into sizes 3 then 2): {2,3,4} padded to 4 (12 positions,
// 3 x 16 = 48 squares) and {9,10} padded to 10 (20, 2 x 100 = 200): 32
// positions and 248 squares against 50 and 5 x 100 = 500. Shares 18/50 = 0.36
// of the positions, 252/500 = 0.504 of the squares: the bound is 0.504, which
// an all-attention step (a = c = 0) attains.
TEST(ChecksPadding, TwoBatchesBoundByTheSquares) {
  PaddingSummary s = SummarisePadding({{10, {10, 4, 2}}, {10, {3, 9}}});
  EXPECT_EQ(s.positions, 50);
  EXPECT_EQ(s.real_tokens, 28);
  EXPECT_EQ(s.dynamic_positions, 30 + 18);
  EXPECT_EQ(s.bucketed_positions, 32);
  EXPECT_EQ(s.width_squares, 500);
  EXPECT_EQ(s.bucketed_width_squares, 248);
  EXPECT_DOUBLE_EQ(s.bucketed_saving_share, 0.36);
  EXPECT_DOUBLE_EQ(s.bucketed_square_saving_share, 0.504);
  EXPECT_DOUBLE_EQ(s.saving_bound_share, 0.504);
}

TEST(ChecksPadding, SquaresOfTheSortedBatches) {
  // {1,6} {5,2} at width 6: 4 x 36 = 144 squares; bucketed {1,2} -> 2 x 4 and
  // {5,6} -> 2 x 36: 80. 64/144 of the squares against 8/24 of the positions.
  PaddingSummary s = SummarisePadding({{6, {1, 6}}, {6, {5, 2}}});
  EXPECT_EQ(s.width_squares, 144);
  EXPECT_EQ(s.bucketed_width_squares, 80);
  EXPECT_DOUBLE_EQ(s.bucketed_square_saving_share, 64.0 / 144.0);
  EXPECT_DOUBLE_EQ(s.saving_bound_share, 64.0 / 144.0);
}

// The model's saving c + a P + b Q -> c + a Pb + b Qb, as a share of the step.
double ModelSaving(const PaddingSummary& s, double a, double b, double c) {
  const double before = c + a * static_cast<double>(s.positions) +
                        b * static_cast<double>(s.width_squares);
  const double after = c + a * static_cast<double>(s.bucketed_positions) +
                       b * static_cast<double>(s.bucketed_width_squares);
  return before > 0 ? (before - after) / before : 0.0;
}

TEST(ChecksPadding, BoundHoldsForEveryMix) {
  // Random runs (seeded): the bound is at least the positions' share, at most
  // 1, and no mix of per-position, attention and fixed cost saves more.
  std::mt19937 rng(37);
  std::uniform_int_distribution<int> nbatches(1, 6), rows(1, 5), width(1, 64);
  std::uniform_real_distribution<double> cost(0.0, 1.0);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<PaddedBatch> run;
    for (int b = nbatches(rng); b > 0; --b) {
      PaddedBatch pb{width(rng), {}};
      std::uniform_int_distribution<int64_t> len(0, pb.width);
      for (int r = rows(rng); r > 0; --r) pb.lengths.push_back(len(rng));
      run.push_back(pb);
    }
    PaddingSummary s = SummarisePadding(run);
    ASSERT_GE(s.saving_bound_share, s.bucketed_saving_share) << trial;
    ASSERT_GE(s.saving_bound_share, s.bucketed_square_saving_share) << trial;
    ASSERT_GE(s.saving_bound_share, 0.0) << trial;
    ASSERT_LE(s.saving_bound_share, 1.0) << trial;
    const double mixes[][3] = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1e-3, 1, 5}};
    for (const auto& m : mixes) {
      ASSERT_LE(ModelSaving(s, m[0], m[1], m[2]), s.saving_bound_share + 1e-12) << trial;
    }
    for (int k = 0; k < 20; ++k) {
      const double a = cost(rng), b = cost(rng) / 64, c = cost(rng) * 1000 * cost(rng);
      ASSERT_LE(ModelSaving(s, a, b, c), s.saving_bound_share + 1e-12) << trial;
    }
  }
}

TEST(ChecksPadding, EqualLengths) {
  // Every row as long as its batch: nothing to remove, both shares 0.
  PaddingSummary none = SummarisePadding({{5, {5, 5}}, {5, {5, 5, 5}}});
  EXPECT_DOUBLE_EQ(none.bucketed_saving_share, 0.0);
  EXPECT_DOUBLE_EQ(none.bucketed_square_saving_share, 0.0);
  EXPECT_DOUBLE_EQ(none.saving_bound_share, none.bucketed_saving_share);
  // Every row 3 long, padded to 8: positions shrink by 1 - 3/8, squares by
  // 1 - 9/64, the bound (the attention-only step's saving).
  PaddingSummary pad = SummarisePadding({{8, {3, 3}}, {8, {3, 3}}});
  EXPECT_DOUBLE_EQ(pad.bucketed_saving_share, 1.0 - 3.0 / 8.0);
  EXPECT_DOUBLE_EQ(pad.bucketed_square_saving_share, 1.0 - 9.0 / 64.0);
  EXPECT_DOUBLE_EQ(pad.saving_bound_share, 1.0 - 9.0 / 64.0);
}

TEST(ChecksPadding, TheShortBatchGoesWhereItRemovesTheMost) {
  // Rows 1 5 5 9 9 in batches of 2, 2 and 1 (width 9: 45 positions, 405
  // squares). Sizes in the order 1, 2, 2 cut {1} {5,5} {9,9}: 1 + 10 + 18 = 29
  // positions and 1 + 50 + 162 = 213 squares; 2, 2, 1 would cut {1,5} {5,9}
  // {9}: 37 and 293; 2, 1, 2 {1,5} {5} {9,9}: 33 and 237.
  PaddingSummary s = SummarisePadding({{9, {9, 1}}, {9, {5, 9}}, {9, {5}}});
  EXPECT_EQ(s.positions, 45);
  EXPECT_EQ(s.bucketed_positions, 29);
  EXPECT_EQ(s.bucketed_width_squares, 213);
  EXPECT_DOUBLE_EQ(s.saving_bound_share, std::max(1.0 - 29.0 / 45.0, 1.0 - 213.0 / 405.0));
}

// Every order of the sizes, by brute force: the least of each cost.
std::pair<int64_t, int64_t> LeastOverOrders(std::vector<int64_t> rows, std::vector<size_t> sizes) {
  std::sort(rows.begin(), rows.end());
  std::sort(sizes.begin(), sizes.end());
  int64_t positions = std::numeric_limits<int64_t>::max(), squares = positions;
  do {
    int64_t p = 0, q = 0;
    size_t at = 0;
    for (size_t n : sizes) {
      at += n;
      p += static_cast<int64_t>(n) * rows[at - 1];
      q += static_cast<int64_t>(n) * rows[at - 1] * rows[at - 1];
    }
    positions = std::min(positions, p);
    squares = std::min(squares, q);
  } while (std::next_permutation(sizes.begin(), sizes.end()));
  return {positions, squares};
}

TEST(ChecksPadding, BucketingIsTheBestOrderOfTheSizes) {
  std::mt19937 rng(7);
  for (int run = 0; run < 300; ++run) {
    const int batches = 1 + static_cast<int>(rng() % 6);
    std::vector<PaddedBatch> in;
    std::vector<int64_t> rows;
    std::vector<size_t> sizes;
    for (int b = 0; b < batches; ++b) {
      PaddedBatch batch{64, {}};
      const size_t n = 1 + rng() % 4;
      for (size_t r = 0; r < n; ++r) batch.lengths.push_back(1 + static_cast<int64_t>(rng() % 64));
      rows.insert(rows.end(), batch.lengths.begin(), batch.lengths.end());
      sizes.push_back(n);
      in.push_back(batch);
    }
    const std::pair<int64_t, int64_t> least = LeastOverOrders(rows, sizes);
    PaddingSummary s = SummarisePadding(in);
    EXPECT_EQ(s.bucketed_positions, least.first) << "run " << run;
    EXPECT_EQ(s.bucketed_width_squares, least.second) << "run " << run;
  }
}

TEST(ChecksPadding, TooManyOrdersFallBackToNoPaddingAtAll) {
  // 24 batches of 24 distinct sizes: 2^24 orders to search, past the bound;
  // the bucketing then stands at every row its own length, which no batching
  // beats (the bound stays a bound, a looser one).
  std::vector<PaddedBatch> in;
  int64_t real = 0, squares = 0;
  for (size_t n = 1; n <= 24; ++n) {
    PaddedBatch batch{100, {}};
    for (size_t r = 0; r < n; ++r) {
      const auto len = static_cast<int64_t>(1 + (n * 7 + r * 13) % 100);
      batch.lengths.push_back(len);
      real += len;
      squares += len * len;
    }
    in.push_back(batch);
  }
  PaddingSummary s = SummarisePadding(in);
  EXPECT_EQ(s.bucketed_positions, real);
  EXPECT_EQ(s.bucketed_width_squares, squares);
}

TEST(ChecksPadding, Empty) {
  PaddingSummary s = SummarisePadding({});
  EXPECT_EQ(s.positions, 0);
  EXPECT_EQ(s.width_squares, 0);
  EXPECT_DOUBLE_EQ(s.padded_share, 0.0);
  EXPECT_DOUBLE_EQ(s.saving_bound_share, 0.0);
}

}  // namespace
}  // namespace fastenough::checks
