#include "fastenough/decide/roi.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(Roi, TheRunIsWhatWasMeasuredStartUpIncluded) {
  // Issue 24: 255 steps x 118.8 ms + 1.16 s of load and warm-up, in a run of
  // 51.68 s of which 13.43 s start-up: the run is 51.68 s, not 31.44 s, and a
  // fix of every step is 30.29 / 51.68 = 58.6% of it, not 96%.
  RunFigures run{.steady_step_ns = 118.8e6, .steps_per_run = 255, .load_ns = 0.66e9,
                 .compile_ns = 0.5e9, .startup_ns = 13.43e9, .wall_ns = 51.68e9};
  Decision d = Decide(run, Plan{.remaining_runs = 10}, {{"padding-waste", 118.8e6, 0.1, 0.05, 0}});
  EXPECT_NEAR(d.run_ns, 51.68e9, 1);
  EXPECT_NEAR(d.other_ns, 51.68e9 - 255 * 118.8e6 - 0.66e9 - 0.5e9 - 13.43e9, 1);
  EXPECT_NEAR(d.one_time_ns, 51.68e9 - 255 * 118.8e6, 1);
  EXPECT_NEAR(d.fixes[0].share_of_run, 255 * 118.8e6 / 51.68e9, 1e-12);
  const std::string& text = d.fixes[0].arithmetic;
  EXPECT_NE(text.find("of a 51.68 s run, of which 21.39 s one-time)"), std::string::npos)
      << text;
  EXPECT_EQ(d.one_time_text, "start-up 13.43 s, load 660.00 ms, compile/warm-up 500.00 ms, "
                             "outside the steps and phases 6.80 s");
  // Hours as given: 0.1 + 0.05 + 0 is 0.15 h, not "0.1 + 0.1 ... = 0.2 h".
  EXPECT_NE(text.find("cost 0.1 dev + 0.05 verify + 0 maint = 0.15 h"), std::string::npos) << text;
}

TEST(Roi, AWallBelowTheStepsAddsNothing) {
  // A wall clock that does not cover the steps (a run directory of a crashed
  // supervisor) never makes the one-time part negative.
  RunFigures run{.steady_step_ns = 1e6, .steps_per_run = 1000, .load_ns = 2e9, .wall_ns = 0.5e9};
  Decision d = Decide(run, Plan{.remaining_runs = 1}, {});
  EXPECT_EQ(d.other_ns, 0);
  EXPECT_NEAR(d.run_ns, 3e9, 1);
}

TEST(Roi, MicrosecondSavingsKeepTheirUnit) {
  // The project's one duration format (util/units.h).
  RunFigures run{.steady_step_ns = 1e6, .steps_per_run = 100};
  Decision d = Decide(run, Plan{.remaining_runs = 5}, {{"sync-in-loop", 14500}});
  EXPECT_NE(d.fixes[0].arithmetic.find("5 runs x 14.5 \u00b5s/step x 100 steps"), std::string::npos)
      << d.fixes[0].arithmetic;
}

TEST(Roi, AFindingThatChangesResultsComesFirstAndIsNotPriced) {
  // Issue 37: a classifier scored in train mode (unpriced), autograd on
  // (unpriced) and a priced .item() per batch that does not pay over 50 runs
  // was told "freeze". The catalog says train-mode-in-eval changes results:
  // it comes first, whatever the hours; autograd-in-eval is to be measured.
  RunFigures run{.steady_step_ns = 10e6, .steps_per_run = 100};
  Decision d = Decide(run, Plan{.remaining_runs = 50}, {{"sync-in-loop", 0.2e6}},
                      {.codes = {"train-mode-in-eval", "autograd-in-eval", "sync-in-loop"},
                       .unpriced = {"train-mode-in-eval", "autograd-in-eval"}});
  EXPECT_EQ(d.recommendation, Recommendation::kFixFirst);
  EXPECT_STREQ(RecommendationName(d.recommendation), "fix-first");
  EXPECT_EQ(d.fix_first, std::vector<std::string>{"train-mode-in-eval"});
  EXPECT_EQ(d.measure, std::vector<std::string>{"autograd-in-eval"});
  ASSERT_EQ(d.fixes.size(), 1u);  // the rest is still priced
  EXPECT_EQ(d.fixes[0].verdict, Verdict::kNotWorthIt);
  EXPECT_FALSE(d.any_pays);

  // Even with a saving, a fix that changes results is not weighed in hours.
  Decision priced = Decide(run, Plan{.remaining_runs = 1}, {{"train-mode-in-eval", 1e3, 5, 5, 5}},
                           {.codes = {"train-mode-in-eval"}});
  EXPECT_EQ(priced.recommendation, Recommendation::kFixFirst);
  EXPECT_TRUE(priced.fixes.empty());
}

TEST(Roi, AFindingWithoutASavingIsMeasuredNotFrozen) {
  RunFigures run{.steady_step_ns = 10e6, .steps_per_run = 100};
  const std::vector<FixPlan> cheap = {{"sync-in-loop", 0.2e6}};
  Decision measure = Decide(run, Plan{.remaining_runs = 50}, cheap,
                            {.codes = {"autograd-in-eval", "sync-in-loop"},
                             .unpriced = {"autograd-in-eval", "autograd-in-eval"}});
  EXPECT_EQ(measure.recommendation, Recommendation::kMeasure);
  EXPECT_EQ(measure.measure, std::vector<std::string>{"autograd-in-eval"});
  // Nothing unpriced, nothing that changes results, nothing that pays: freeze.
  Decision freeze = Decide(run, Plan{.remaining_runs = 50}, cheap, {.codes = {"sync-in-loop"}});
  EXPECT_EQ(freeze.recommendation, Recommendation::kFreeze);
  // A fix that pays is made before the unpriced one is measured.
  Decision fix = Decide(run, Plan{.remaining_runs = 50000}, cheap,
                        {.codes = {"autograd-in-eval"}, .unpriced = {"autograd-in-eval"}});
  EXPECT_EQ(fix.recommendation, Recommendation::kFix);
  EXPECT_TRUE(fix.any_pays);
}

}  // namespace
}  // namespace fastenough::decide
