#include "fastenough/decide/roi.h"

#include <gtest/gtest.h>

namespace fastenough::decide {
namespace {

TEST(Roi, SavingPaysOverManyRuns) {
  // 50 runs x 10 ms/step x 36000 steps = 18000 s = 5 h saved; cost 1+1+0.5 = 2.5 h.
  RunFigures run{.steady_step_ns = 40e6, .steps_per_run = 36000};
  Decision d = Decide(run, Plan{.remaining_runs = 50},
                      {{"sync-in-loop", 10e6, 1, 1, 0.5}});
  ASSERT_EQ(d.fixes.size(), 1u);
  EXPECT_NEAR(d.fixes[0].hours_saved, 5.0, 1e-9);
  EXPECT_NEAR(d.fixes[0].cost_hours, 2.5, 1e-9);
  EXPECT_EQ(d.fixes[0].verdict, Verdict::kDoIt);
  EXPECT_NEAR(d.fixes[0].share_of_run, 0.25, 1e-9);
  EXPECT_TRUE(d.any_pays);
}

TEST(Roi, LoadAndCompileDominate) {
  // Run: 600 s load + 60 s prepare + 300 s compile + 100 steps x 0.4 s = 1000 s.
  // Halving the step saves 100 x 0.2 s = 20 s per run (2% of it):
  // 50 runs -> 1000 s = 0.2778 h, below a 1 h fix.
  RunFigures run{.steady_step_ns = 0.4e9, .steps_per_run = 100, .load_ns = 600e9,
                 .prepare_ns = 60e9, .compile_ns = 300e9};
  Decision d = Decide(run, Plan{.remaining_runs = 50}, {{"small-kernels", 0.2e9, 1, 0, 0}});
  EXPECT_NEAR(d.run_ns, 1000e9, 1);
  EXPECT_NEAR(d.one_time_ns, 960e9, 1);
  EXPECT_NEAR(d.fixes[0].share_of_run, 0.02, 1e-12);
  EXPECT_NEAR(d.fixes[0].hours_saved, 1000.0 / 3600, 1e-12);
  EXPECT_EQ(d.fixes[0].verdict, Verdict::kNotWorthIt);
  EXPECT_FALSE(d.any_pays);
}

TEST(Roi, NoFixPaysAndSavingIsCappedAtStep) {
  // A bound above the step is capped at the step: 10 runs x 1 ms x 1000 = 10 s.
  RunFigures run{.steady_step_ns = 1e6, .steps_per_run = 1000};
  Decision d = Decide(run, Plan{.remaining_runs = 10},
                      {{"a", 5e6, 0.5, 0.5, 0}, {"b", 0.5e6, 0.1, 0, 0}});
  EXPECT_NEAR(d.fixes[0].hours_saved, 10.0 / 3600, 1e-12);
  EXPECT_NEAR(d.fixes[1].hours_saved, 5.0 / 3600, 1e-12);
  EXPECT_EQ(d.fixes[0].verdict, Verdict::kNotWorthIt);
  EXPECT_EQ(d.fixes[1].verdict, Verdict::kNotWorthIt);
  EXPECT_FALSE(d.any_pays);
}

TEST(Roi, NoCostGivesBudgetAndWaitValueScales) {
  // 100 runs x 36 ms x 1000 = 3600 s = 1 h, x 2 for a waiting hour worth 2 = 2 h budget.
  RunFigures run{.steady_step_ns = 100e6, .steps_per_run = 1000};
  Decision d = Decide(run, Plan{.remaining_runs = 100, .wait_hour_value = 2.0},
                      {{"x", 36e6}});
  EXPECT_NEAR(d.fixes[0].budget_hours, 2.0, 1e-9);
  EXPECT_EQ(d.fixes[0].verdict, Verdict::kWithinBudget);
  EXPECT_LT(d.fixes[0].cost_hours, 0);
}

}  // namespace
}  // namespace fastenough::decide
