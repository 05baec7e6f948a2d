#include "fastenough/rundir/step_summary.h"

#include <gtest/gtest.h>

namespace fastenough::rundir {
namespace {

StepRecord Step(int rank, int64_t start, int64_t end, const char* phase, std::optional<int64_t> items,
               const char* mode = "train") {
  StepRecord s;
  s.mode = mode;
  s.rank = rank;
  s.start_mono_ns = start;
  s.end_mono_ns = end;
  s.phase = phase;
  s.items = items;
  s.source = "optimizer";
  return s;
}

TEST(RundirSteps, SteadyThroughputOverSteadyTime) {
  std::vector<StepRecord> steps = {
      Step(0, 0, 900, "warmup", 8),        // not steady: counted in all_steps only
      Step(0, 1000, 1100, "steady", 8),
      Step(0, 1100, 1300, "steady", 8),
      Step(0, 1300, 1400, "steady", 8),
      Step(0, 1400, 1500, "steady", 8),
      Step(1, 0, 100, "steady", std::nullopt),  // rank 1 without item counts
  };
  auto s = SummarizeSteps(steps);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].rank, 0);
  EXPECT_EQ(s[0].all_steps, 5);
  EXPECT_EQ(s[0].count, 4);
  EXPECT_EQ(s[0].median_ns, 100);
  EXPECT_EQ(s[0].p90_ns, 170);
  EXPECT_EQ(s[0].span_ns, 500);
  // The steady steps follow each other without a gap: 500 ns of steady time.
  EXPECT_EQ(s[0].steady_ns, 500);
  EXPECT_DOUBLE_EQ(s[0].steps_per_s.value(), 4 / 500e-9);
  EXPECT_DOUBLE_EQ(s[0].items_per_s.value(), 32 / 500e-9);
  EXPECT_FALSE(s[0].tokens_per_s.has_value());  // no step carried tokens
  EXPECT_EQ(s[0].source, "optimizer");
  EXPECT_EQ(s[1].count, 1);
  EXPECT_FALSE(s[1].items_per_s.has_value());
}

TEST(RundirSteps, ProfilerWindowAndPausesAreNoSteadyTime) {
  // steady 0-100, 100-200; profile window 200-5200 (its steps are no steady
  // steps); a pause at the edge 5200-5300; steady again 5300-5400, 5400-5500.
  std::vector<StepRecord> steps = {
      Step(0, 0, 100, "steady", 2),     Step(0, 100, 200, "steady", 2),
      Step(0, 200, 2700, "profile", 2), Step(0, 2700, 5200, "profile", 2),
      Step(0, 5300, 5400, "steady", 2), Step(0, 5400, 5500, "steady", 2),
  };
  auto s = SummarizeSteps(steps);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].count, 4);
  EXPECT_EQ(s[0].span_ns, 5500);
  EXPECT_EQ(s[0].steady_ns, 400);
  // 4 steps in 400 ns of steady time, not in the 5500 ns from first to last.
  EXPECT_DOUBLE_EQ(s[0].steps_per_s.value(), 4 / 400e-9);
  EXPECT_DOUBLE_EQ(s[0].items_per_s.value(), 8 / 400e-9);
}

TEST(RundirSteps, TrainAndEvalAreSummarisedApart) {
  std::vector<StepRecord> steps = {
      Step(0, 0, 8000, "steady", 32, "train"),  Step(0, 8000, 16000, "steady", 32, "train"),
      Step(0, 16000, 17000, "steady", 64, "eval"), Step(0, 17000, 18000, "steady", 64, "eval"),
      Step(0, 18000, 19000, "steady", 64, "eval"),
  };
  auto s = SummarizeSteps(steps);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].mode, "eval");  // ordered by rank, then mode
  EXPECT_EQ(s[0].count, 3);
  EXPECT_EQ(s[0].median_ns, 1000);
  EXPECT_DOUBLE_EQ(s[0].items_per_s.value(), 192 / 3000e-9);
  EXPECT_EQ(s[1].mode, "train");
  EXPECT_EQ(s[1].median_ns, 8000);
  EXPECT_DOUBLE_EQ(s[1].items_per_s.value(), 64 / 16000e-9);
  // Training took 16 us of steady time, evaluation 3 us: training is the headline.
  EXPECT_EQ(HeadlineMode(s), "train");
  EXPECT_EQ(HeadlineMode({}), "");
}

TEST(RundirSteps, NoSteadyStepsGivesNoRate) {
  auto s = SummarizeSteps({Step(0, 0, 10, "warmup", 1)});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].count, 0);
  EXPECT_FALSE(s[0].steps_per_s.has_value());
  EXPECT_TRUE(SummarizeSteps({}).empty());
}

}  // namespace
}  // namespace fastenough::rundir
