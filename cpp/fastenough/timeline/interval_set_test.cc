#include "fastenough/timeline/interval_set.h"

#include <gtest/gtest.h>

namespace fastenough::timeline {
namespace {

using V = std::vector<Interval>;

IntervalSet S(V v) { return IntervalSet::FromUnsorted(std::move(v)); }

TEST(IntervalSetTest, EmptyInputs) {
  IntervalSet e;
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.TotalLength(), 0);
  EXPECT_TRUE(Union(e, e).empty());
  EXPECT_TRUE(Intersect(e, S({{0, 5}})).empty());
  EXPECT_EQ(Subtract(S({{0, 5}}), e).intervals(), (V{{0, 5}}));
  EXPECT_TRUE(Subtract(e, S({{0, 5}})).empty());
  EXPECT_EQ(Gaps(e, 10, 20).intervals(), (V{{10, 20}}));
  // Zero-length and reversed intervals are dropped.
  EXPECT_TRUE(S({{3, 3}, {9, 4}}).empty());
}

TEST(IntervalSetTest, NormalFormMergesUnsortedTouchingNestedOverlapping) {
  // unsorted: [20,30) [0,10); touching: [10,12); nested: [2,4); overlap: [25,40)
  IntervalSet s = S({{20, 30}, {0, 10}, {2, 4}, {10, 12}, {25, 40}, {50, 51}});
  EXPECT_EQ(s.intervals(), (V{{0, 12}, {20, 40}, {50, 51}}));
  EXPECT_EQ(s.TotalLength(), 12 + 20 + 1);
  EXPECT_EQ(s.start(), 0);
  EXPECT_EQ(s.end(), 51);
}

TEST(IntervalSetTest, Union) {
  IntervalSet a = S({{0, 10}, {20, 30}});
  IntervalSet b = S({{5, 22}, {30, 35}, {40, 41}});
  EXPECT_EQ(Union(a, b).intervals(), (V{{0, 35}, {40, 41}}));
  EXPECT_EQ(Union(b, a), Union(a, b));
}

TEST(IntervalSetTest, Intersect) {
  IntervalSet a = S({{0, 10}, {20, 30}});
  IntervalSet b = S({{5, 22}, {25, 26}, {29, 50}});
  EXPECT_EQ(Intersect(a, b).intervals(), (V{{5, 10}, {20, 22}, {25, 26}, {29, 30}}));
  // Touching is not overlapping.
  EXPECT_TRUE(Intersect(S({{0, 5}}), S({{5, 9}})).empty());
  // Nested.
  EXPECT_EQ(Intersect(S({{0, 100}}), S({{10, 20}})).intervals(), (V{{10, 20}}));
}

TEST(IntervalSetTest, Subtract) {
  IntervalSet a = S({{0, 10}, {20, 30}, {40, 50}});
  // b covers the tail of the first, splits the second, and spans into the third.
  IntervalSet b = S({{8, 12}, {22, 24}, {26, 45}});
  EXPECT_EQ(Subtract(a, b).intervals(), (V{{0, 8}, {20, 22}, {24, 26}, {45, 50}}));
  // One long b-interval covering several a-intervals.
  EXPECT_TRUE(Subtract(a, S({{-5, 60}})).empty());
  // Nested hole.
  EXPECT_EQ(Subtract(S({{0, 10}}), S({{3, 4}})).intervals(), (V{{0, 3}, {4, 10}}));
  // Touching: nothing removed.
  EXPECT_EQ(Subtract(S({{0, 10}}), S({{10, 20}})).intervals(), (V{{0, 10}}));
}

TEST(IntervalSetTest, GapsAndLengthWithin) {
  IntervalSet a = S({{10, 20}, {30, 40}});
  EXPECT_EQ(Gaps(a, 0, 50).intervals(), (V{{0, 10}, {20, 30}, {40, 50}}));
  EXPECT_EQ(Gaps(a, 15, 35).intervals(), (V{{20, 30}}));
  EXPECT_EQ(a.LengthWithin(0, 50), 20);
  EXPECT_EQ(a.LengthWithin(15, 35), 5 + 5);
  EXPECT_EQ(a.LengthWithin(20, 30), 0);
  EXPECT_EQ(a.LengthWithin(12, 13), 1);
  EXPECT_EQ(a.LengthWithin(50, 40), 0);
}

TEST(IntervalSetTest, AppendSortedMerges) {
  IntervalSet s;
  s.AppendSorted({0, 5});
  s.AppendSorted({5, 7});   // touching
  s.AppendSorted({1, 3});   // nested
  s.AppendSorted({9, 10});
  EXPECT_EQ(s.intervals(), (V{{0, 7}, {9, 10}}));
}

}  // namespace
}  // namespace fastenough::timeline
