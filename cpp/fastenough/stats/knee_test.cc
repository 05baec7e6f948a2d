#include "fastenough/stats/knee.h"

#include <limits>

#include <gtest/gtest.h>

namespace fastenough::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(KneeIndex, NoUsableValuesHasNoKnee) {
  EXPECT_EQ(KneeIndex({}), -1);
  EXPECT_EQ(KneeIndex({kNaN, 0.0, -3.0}), -1);
}

TEST(KneeIndex, OneValueIsTheKnee) { EXPECT_EQ(KneeIndex({12.0}), 0); }

TEST(KneeIndex, SmallestWithinFivePercentOfTheBest) {
  // Throughput of sizes 1, 2, 4, 8, 16: best 1000; floor 950 -> size 8 (960).
  EXPECT_EQ(KneeIndex({100.0, 400.0, 800.0, 960.0, 1000.0}, 0.05), 3);
  // Two values: 950 is exactly on the floor and counts.
  EXPECT_EQ(KneeIndex({950.0, 1000.0}, 0.05), 0);
  // A curve that falls after its peak: the knee is at or before the peak.
  EXPECT_EQ(KneeIndex({100.0, 1000.0, 700.0}, 0.05), 1);
}

TEST(KneeIndex, FailedSizesAndExtremeFractions) {
  // Size 3 ran out of memory (NaN): never the knee, even though NaN compares false.
  EXPECT_EQ(KneeIndex({100.0, 990.0, 1000.0, kNaN}, 0.05), 1);
  EXPECT_EQ(KneeIndex({100.0, 990.0, 1000.0}, 0.0), 2);
  EXPECT_EQ(KneeIndex({100.0, 990.0, 1000.0}, -0.5), 2);
  EXPECT_EQ(KneeIndex({kNaN, 100.0, 1000.0}, 1.0), 1);
}

}  // namespace
}  // namespace fastenough::stats
