#include "fastenough/findings/overlaps.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace fastenough::findings {
namespace {

Finding Make(const char* code, const char* source, double share, int64_t per_step,
             Verdict v = Verdict::kAvoidable) {
  Finding f;
  f.code = code;
  f.source = source;
  f.verdict = v;
  f.rank = 0;
  f.saving.share_of_step = share;
  f.saving.per_step_ns = per_step;
  return f;
}

bool Overlaps(const Finding& f, const char* code) {
  return std::find(f.overlaps.begin(), f.overlaps.end(), code) != f.overlaps.end();
}

timeline::IntervalSet Set(std::vector<timeline::Interval> iv) {
  return timeline::IntervalSet::FromUnsorted(std::move(iv));
}

TEST(Overlaps, TraceFindingsClaimingTheSameIdleOverlap) {
  // A decode step of 100 ns: small-kernels claims the device idle 0..98,
  // gpu-idle-host-bound the host-wait idle 2..98 (each "98% of the step").
  std::vector<Finding> f = {Make("small-kernels", "trace", 0.98, 98),
                            Make("gpu-idle-host-bound", "trace", 0.96, 96),
                            Make("pageable-memcpy", "trace", 0.01, 1)};
  f[0].claimed = Set({{0, 98}});
  f[1].claimed = Set({{2, 98}});
  f[2].claimed = Set({{98, 99}});
  MarkTraceOverlaps(f, Set({{0, 100}}));
  EXPECT_TRUE(Overlaps(f[0], "gpu-idle-host-bound"));
  EXPECT_TRUE(Overlaps(f[1], "small-kernels"));
  EXPECT_TRUE(f[2].overlaps.empty());
  const auto totals = BoundAvoidable(f);
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].groups, 2);
  EXPECT_DOUBLE_EQ(totals[0].share_of_step, 0.98 + 0.01);  // the larger of the pair, once
  EXPECT_EQ(totals[0].per_step_ns, 98 + 1);
}

TEST(Overlaps, AFindingWithoutAClaimClaimsTheWholeSteadyTime) {
  std::vector<Finding> f = {Make("no-tensor-cores", "trace", 0.3, 30),
                            Make("serial-small-gemm", "trace", 0.25, 25)};
  f[1].claimed = Set({{10, 40}});
  MarkTraceOverlaps(f, Set({{0, 100}}));
  EXPECT_TRUE(Overlaps(f[0], "serial-small-gemm"));
}

TEST(Overlaps, AgentFindingsOfOnePartOfTheStepOverlap) {
  // padding-waste and full-vocab-logits both shrink the forward; the trace's
  // serial-small-gemm too; a host sync is another part of the step.
  std::vector<Finding> f = {Make("padding-waste", "agent", 0.8, 80),
                            Make("full-vocab-logits", "agent", 0.2, 20),
                            Make("serial-small-gemm", "trace", 0.25, 25),
                            Make("sync-in-loop", "agent", 0.05, 5),
                            Make("memory-headroom", "agent", -1, -1,
                                 Verdict::kInsufficientEvidence)};
  MarkClassOverlaps(f);
  EXPECT_TRUE(Overlaps(f[0], "full-vocab-logits"));
  EXPECT_TRUE(Overlaps(f[0], "serial-small-gemm"));
  EXPECT_TRUE(f[3].overlaps.empty());
  EXPECT_TRUE(f[4].overlaps.empty());
  const auto totals = BoundAvoidable(f);
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_DOUBLE_EQ(totals[0].share_of_step, 0.8 + 0.05);
  EXPECT_EQ(totals[0].findings, 4);
  EXPECT_EQ(totals[0].groups, 2);
}

TEST(Overlaps, SavingsThatCannotAllBeTrueAreOneGroup) {
  // Two parts of the step claiming 70% each: more than the step together.
  std::vector<Finding> f = {Make("dataloader-bound", "agent", 0.7, 70),
                            Make("sync-in-loop", "agent", 0.7, 70)};
  const auto totals = BoundAvoidable(f);
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].groups, 1);
  EXPECT_DOUBLE_EQ(totals[0].share_of_step, 0.7);
  EXPECT_TRUE(Overlaps(f[0], "sync-in-loop"));
  EXPECT_TRUE(Overlaps(f[1], "dataloader-bound"));
}

TEST(Overlaps, TheEvalProbesTwoClaimsCountTogether) {
  // Priced by the eval probe, each claims the most its fix saves in either
  // order; fixed together they saved more than either (a fused path that needs
  // both): the group's total is their sum, capped at the step, not the larger.
  const std::string measured = "measured: the model's own forward";
  std::vector<Finding> f = {Make("train-mode-in-eval", "agent", 0.45, 450),
                            Make("autograd-in-eval", "agent", 0.40, 400),
                            Make("sync-in-loop", "agent", 0.02, 20)};
  for (int i = 0; i < 2; ++i) f[i].evidence.emplace_back("saving_basis", measured);
  MarkClassOverlaps(f);
  ASSERT_TRUE(Overlaps(f[0], "autograd-in-eval"));
  std::vector<AvoidableTotal> t = BoundAvoidable(f);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0].share_of_step, 0.45 + 0.40 + 0.02, 1e-12);
  EXPECT_EQ(t[0].per_step_ns, 450 + 400 + 20);
  // Their sum is capped at the step (the per-step time scaled with it).
  std::vector<Finding> c = {Make("train-mode-in-eval", "agent", 0.59, 590),
                            Make("autograd-in-eval", "agent", 0.54, 540)};
  for (auto& x : c) x.evidence.emplace_back("saving_basis", measured);
  MarkClassOverlaps(c);
  t = BoundAvoidable(c);
  EXPECT_DOUBLE_EQ(t[0].share_of_step, 1.0);
  EXPECT_EQ(t[0].per_step_ns, 1000);
  // Without the measured basis (a derived saving) the larger one stands for both.
  std::vector<Finding> g = {Make("train-mode-in-eval", "agent", 0.30, 300),
                            Make("autograd-in-eval", "agent", 0.20, 200)};
  MarkClassOverlaps(g);
  t = BoundAvoidable(g);
  EXPECT_DOUBLE_EQ(t[0].share_of_step, 0.30);
  EXPECT_EQ(t[0].per_step_ns, 300);
}

TEST(Overlaps, RanksAreTotalledApart) {
  std::vector<Finding> f = {Make("sync-in-loop", "agent", 0.4, 40),
                            Make("sync-in-loop", "agent", 0.5, 50)};
  f[1].rank = 1;
  MarkClassOverlaps(f);
  EXPECT_TRUE(f[0].overlaps.empty());
  const auto totals = BoundAvoidable(f);
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_DOUBLE_EQ(totals[1].share_of_step, 0.5);
}

}  // namespace
}  // namespace fastenough::findings
