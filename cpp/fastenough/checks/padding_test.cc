#include "fastenough/checks/padding.h"

#include <gtest/gtest.h>

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
  // Sizes 3 and 1 (largest first when re-cut): lengths 4,4,4 | 9 clamped to 4.
  PaddingSummary s = SummarisePadding({{4, {4, 4, 4}}, {4, {9}}, {4, {}}});
  EXPECT_EQ(s.batches, 2);
  EXPECT_EQ(s.positions, 16);
  EXPECT_EQ(s.real_tokens, 16);
  EXPECT_DOUBLE_EQ(s.padded_share, 0.0);
  EXPECT_EQ(s.bucketed_positions, 16);
}

TEST(ChecksPadding, Empty) {
  PaddingSummary s = SummarisePadding({});
  EXPECT_EQ(s.positions, 0);
  EXPECT_DOUBLE_EQ(s.padded_share, 0.0);
}

}  // namespace
}  // namespace fastenough::checks
