#include "fastenough/rundir/step_trend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "fastenough/rundir/measurement.h"
#include "fastenough/rundir/step_summary.h"

namespace fastenough::rundir {
namespace {

constexpr int64_t kMs = 1'000'000;

// A deterministic "loaded machine": +-20% around the level, and every 7th
// step a spike of 4x (another process took the core).
std::vector<int64_t> Noisy(const std::vector<double>& level_ms) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < level_ms.size(); ++i) {
    const double wobble = 1.0 + 0.2 * std::sin(static_cast<double>(i) * 2.39996);
    const double spike = i % 7 == 3 ? 4.0 : 1.0;
    out.push_back(static_cast<int64_t>(level_ms[i] * wobble * spike * kMs));
  }
  return out;
}

std::vector<double> Flat(size_t n, double ms) { return std::vector<double>(n, ms); }

TEST(StepTrend, TheLennardJonesDriftIsNoSteadyState) {
  // issue 37, item 7: 0.34 s a step, growing to 1.35 s over ~290 steps.
  std::vector<double> level;
  for (int i = 0; i < 292; ++i) level.push_back(340 + (1350.0 - 340) * i / 291);
  StepTrend t = AssessTrend(Noisy(level));
  EXPECT_TRUE(t.drifts);
  EXPECT_GT(t.rho, 0.8);
  EXPECT_GT(t.tail_median_ns, 2 * t.head_median_ns);
}

TEST(StepTrend, AFlatNoisyLoopIsSteady) {
  // Spikes and wobble, wide spread, no trend.
  StepTrend t = AssessTrend(Noisy(Flat(300, 12)));
  EXPECT_FALSE(t.drifts);
  EXPECT_LT(std::abs(t.rho), 0.2);
}

TEST(StepTrend, SpreadAloneIsNoTrend) {
  // Alternating fast and slow steps (a training step, then an eval forward
  // counted in the same mode): a factor of 10 of spread, no drift.
  std::vector<int64_t> d;
  for (int i = 0; i < 200; ++i) d.push_back((i % 2 ? 10 : 1) * kMs);
  EXPECT_FALSE(AssessTrend(d).drifts);
}

TEST(StepTrend, ASmallOrUnorderedSlowDownIsNoTrend) {
  // A regular slow-down of +20%: below the ratio.
  std::vector<double> level;
  for (int i = 0; i < 120; ++i) level.push_back(10 + 2.0 * i / 119);
  EXPECT_FALSE(AssessTrend(Noisy(level)).drifts);
  // A burst of slow steps in the last third only (another job started): the
  // medians move 3x, the rank correlation over the whole run stays low.
  std::vector<int64_t> d(150, 10 * kMs);
  for (int i = 0; i < 150; ++i) d[i] += (i * 7919 % 13) * kMs / 10;  // jitter, no order
  for (int i = 100; i < 150; i += 2) d[i] = 40 * kMs;
  for (int i = 101; i < 150; i += 2) d[i] = 30 * kMs;
  for (int i = 0; i < 100; i += 3) d[i] = 35 * kMs;
  StepTrend burst = AssessTrend(d);
  EXPECT_GE(burst.tail_median_ns, 2 * burst.head_median_ns);
  EXPECT_LT(burst.rho, kDriftRho);
  EXPECT_FALSE(burst.drifts);
  // A load-driven wobble seen on this machine: 1.6x, ordered.
  std::vector<double> wobble;
  for (int i = 0; i < 297; ++i) wobble.push_back(22 + 14.0 * i / 296);
  EXPECT_FALSE(AssessTrend(Noisy(wobble)).drifts);
}

TEST(StepTrend, SubMillisecondGrowthIsNoDrift) {
  // 50 us growing to 200 us: 4x, ordered, but a rise of 0.15 ms.
  std::vector<double> level;
  for (int i = 0; i < 100; ++i) level.push_back(0.05 + 0.15 * i / 99);
  StepTrend t = AssessTrend(Noisy(level));
  EXPECT_GT(t.rho, kDriftRho);
  EXPECT_FALSE(t.drifts);
}

TEST(StepTrend, SpeedingUpIsWarmUpEndingLateNotADrift) {
  std::vector<double> level;
  for (int i = 0; i < 90; ++i) level.push_back(30 - 20.0 * i / 89);
  StepTrend t = AssessTrend(Noisy(level));
  EXPECT_LT(t.rho, -0.5);
  EXPECT_FALSE(t.drifts);
}

TEST(StepTrend, TooFewStepsNoVerdict) {
  std::vector<double> level;
  for (int i = 0; i < 20; ++i) level.push_back(1 + i);
  EXPECT_FALSE(AssessTrend(Noisy(level)).drifts);
}

TEST(StepTrend, SpearmanOfOrderedAndTiedValues) {
  EXPECT_NEAR(SpearmanWithIndex({1, 2, 3, 4, 5}), 1.0, 1e-12);
  EXPECT_NEAR(SpearmanWithIndex({5, 4, 3, 2, 1}), -1.0, 1e-12);
  EXPECT_EQ(SpearmanWithIndex({3, 3, 3, 3}), 0.0);
  EXPECT_NEAR(SpearmanWithIndex({1, 1, 2, 2}), 0.894427191, 1e-6);
}

TEST(StepTrend, SummaryAndMeasurementSayADriftingRunIsPartial) {
  std::vector<StepRecord> steps;
  int64_t t = 0;
  for (int i = 0; i < 100; ++i) {
    StepRecord s;
    s.index = i;
    s.phase = "steady";
    s.mode = "train";
    s.start_mono_ns = t;
    t += (340 + 10 * i) * kMs;
    s.end_mono_ns = t;
    steps.push_back(s);
  }
  std::vector<StepSummary> sums = SummarizeSteps(steps);
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_TRUE(sums[0].trend.drifts);
  MeasurementInputs in;
  AgentRecord a;
  a.pid = 1;
  a.role = "main";
  a.torch = "2.13.0";
  a.steps = 100;
  in.agents = {a};
  in.steps = sums;
  in.checks_file = true;
  in.traces_analysed = 1;
  Measurement m = AssessMeasurement(in);
  EXPECT_EQ(m.status, "partial");
  ASSERT_EQ(m.reasons.size(), 1u);
  EXPECT_EQ(m.reasons[0].code, "steps-drift");
  EXPECT_NE(m.reasons[0].text.find("slowed"), std::string::npos) << m.reasons[0].text;
  EXPECT_NE(m.reasons[0].text.find("train steps"), std::string::npos) << m.reasons[0].text;
  // The same steps, flat: complete.
  for (auto& s : steps) s.end_mono_ns = s.start_mono_ns + 340 * kMs;
  in.steps = SummarizeSteps(steps);
  EXPECT_EQ(AssessMeasurement(in).status, "complete");
}

}  // namespace
}  // namespace fastenough::rundir
