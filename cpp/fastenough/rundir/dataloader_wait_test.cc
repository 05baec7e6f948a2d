#include "fastenough/rundir/dataloader_wait.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/test_evidence.h"
#include "fastenough/rundir/step_reference.h"

namespace fastenough::rundir {
namespace {

using findings::testing::Ev;

AgentRecord LoopAgent(const std::string& mode, int64_t steps, int64_t step_ns, int64_t data_ns) {
  AgentRecord a;
  a.role = "main";
  a.rank = 0;
  StepSplit s;
  s.steps = steps;
  s.step_ns = step_ns;
  s.data_ns = data_ns;
  a.step_split[mode] = s;
  return a;
}

findings::Finding WindowPriced(int64_t per_step_ns, double share) {
  findings::Finding f = findings::NewFinding("dataloader-bound", findings::Verdict::kAvoidable, 0);
  f.saving.per_step_ns = per_step_ns;
  f.saving.share_of_step = share;
  return f;
}

TEST(RundirDataloaderWait, TheLoopsTimedWaitPricesTheFindingNotTheWindowsShare) {
  // lightning-fit-val (session 6): the window's loader took 1.37 ms of a
  // 17.55 ms profiled step; the steady median is 2.50 ms; the agent timed
  // 5.39 ms of __next__ over 16 steady training steps (0.337 ms a step).
  std::vector<findings::Finding> f = {WindowPriced(1371003, 1371003.0 / 17553788)};
  ExpressSavingsAgainstStep(2500860, &f);
  EXPECT_NEAR(static_cast<double>(f[0].saving.per_step_ns), 195325, 200);  // the old claim
  PriceDataloaderWaitFromAgents({LoopAgent("train", 16, 65251216, 5390475)}, "train", 2500860, &f);
  // 5390475 / 16 = 336904.7 ns, 13.47% of 2500860.
  EXPECT_EQ(f[0].saving.per_step_ns, 336905);
  EXPECT_NEAR(f[0].saving.share_of_step, 336904.6875 / 2500860, 1e-9);
  EXPECT_TRUE(f[0].saving.upper_bound);
  EXPECT_EQ(Ev<int64_t>(f[0], "data_wait_ns_per_step"), 336905);
  EXPECT_EQ(Ev<int64_t>(f[0], "data_wait_timed_steps"), 16);
  EXPECT_NEAR(static_cast<double>(Ev<int64_t>(f[0], "window_per_step_ns")), 195325, 200);
  EXPECT_EQ(Ev<std::string>(f[0], "saving_basis").rfind("measured: ", 0), 0u);
}

TEST(RundirDataloaderWait, AWaitLongerThanTheStepClaimsTheWholeStepAtMost) {
  std::vector<findings::Finding> f = {WindowPriced(100, 0.01)};
  PriceDataloaderWaitFromAgents({LoopAgent("eval", 8, 8000, 16000)}, "eval", 1000, &f);
  EXPECT_EQ(f[0].saving.per_step_ns, 1000);
  EXPECT_DOUBLE_EQ(f[0].saving.share_of_step, 1.0);
}

TEST(RundirDataloaderWait, WithoutATimedWaitOfThatModeTheWindowsPriceStays) {
  struct Case {
    std::string mode;
    int64_t steps, data_ns, reference_ns;
  };
  // Another mode, too few timed steps, no wait, no reference.
  const std::vector<Case> cases = {
      {"eval", 16, 1600, 1000}, {"train", 3, 1600, 1000}, {"train", 16, 0, 1000}, {"train", 16, 1600, 0}};
  for (const Case& c : cases) {
    std::vector<findings::Finding> f = {WindowPriced(100, 0.1)};
    PriceDataloaderWaitFromAgents({LoopAgent("train", c.steps, 16000, c.data_ns)}, c.mode,
                                  c.reference_ns, &f);
    EXPECT_EQ(f[0].saving.per_step_ns, 100) << c.mode << " " << c.steps << " " << c.data_ns;
    EXPECT_TRUE(f[0].evidence.empty());
  }
  // A DataLoader worker's record is not the loop's.
  AgentRecord worker = LoopAgent("train", 16, 16000, 1600);
  worker.role = "worker";
  std::vector<findings::Finding> f = {WindowPriced(100, 0.1)};
  PriceDataloaderWaitFromAgents({worker}, "train", 1000, &f);
  EXPECT_EQ(f[0].saving.per_step_ns, 100);
}

TEST(RundirDataloaderWait, TheLoopProcessThatTimedTheStepsPricesIt) {
  // Two "main" records of rank 0 (ema_deepcopy under bench/real_programs.py):
  // the first timed nothing.
  AgentRecord launcher;
  launcher.role = "main";
  launcher.rank = 0;
  std::vector<findings::Finding> f = {WindowPriced(100, 0.1)};
  PriceDataloaderWaitFromAgents({launcher, LoopAgent("train", 16, 16000, 1600)}, "train", 1000,
                                &f);
  EXPECT_EQ(f[0].saving.per_step_ns, 100);  // 1600 / 16
  EXPECT_EQ(Ev<int64_t>(f[0], "data_wait_timed_steps"), 16);
}

TEST(RundirDataloaderWait, OnlyAvoidableDataloaderFindingsAreRepriced) {
  std::vector<findings::Finding> f = {WindowPriced(100, 0.1), WindowPriced(100, 0.1)};
  f[0].verdict = findings::Verdict::kBounded;  // workers and threads already share the cores
  f[1].code = "sync-in-loop";
  PriceDataloaderWaitFromAgents({LoopAgent("train", 16, 16000, 1600)}, "train", 1000, &f);
  EXPECT_EQ(f[0].saving.per_step_ns, 100);
  EXPECT_EQ(f[1].saving.per_step_ns, 100);
}

AgentRecord LoaderLoop(int64_t data_ns_p10, std::optional<int64_t> rank = 0) {
  // torch-func-sgd (tests/real): 16 timed steps, the loop's wait in
  // DataLoader.__next__ 0.35 ms in nearly every one, the loader iterated at
  // func_sgd.py:42.
  AgentRecord a = LoopAgent("train", 16, 16 * 6000000, 16 * 400000);
  a.rank = rank;
  a.step_split["train"].data_ns_p10 = data_ns_p10;
  findings::Location site;
  site.file = "/home/u/func_sgd.py";
  site.line = 42;
  site.function = "main";
  a.dataloader_site["train"] = site;
  return a;
}

TEST(RundirDataloaderWait, TheTimedStepsFindALoaderTheWindowDidNotShow) {
  // The window's 4 profiled steps put the loader near its 5% gate (the model's
  // ops slow several times more under the profiler); the timed steps outside
  // it: 0.35 ms of a 6.26 ms median in nearly every step (5.6%).
  std::vector<findings::Finding> f;
  const std::vector<AgentRecord> agents = {LoaderLoop(352578, std::nullopt)};
  FindDataloaderWaitFromAgents(agents, "train", 6261149, /*has_device=*/false, &f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "dataloader-bound");
  EXPECT_EQ(f[0].verdict, findings::Verdict::kAvoidable);
  EXPECT_EQ(f[0].source, "agent");
  EXPECT_EQ(f[0].rank, 0);
  ASSERT_EQ(f[0].where.size(), 1u);
  EXPECT_EQ(f[0].where[0].file, "/home/u/func_sgd.py");
  EXPECT_EQ(f[0].where[0].line, 42);
  EXPECT_EQ(Ev<int64_t>(f[0], "loop_wait_in_nearly_every_step_ns"), 352578);
  // Then priced as any: the mean wait, 0.4 ms of the 6.26 ms median.
  PriceDataloaderWaitFromAgents(agents, "train", 6261149, &f);
  EXPECT_EQ(f[0].saving.per_step_ns, 400000);
  EXPECT_NEAR(f[0].saving.share_of_step, 400000.0 / 6261149, 1e-9);
}

TEST(RundirDataloaderWait, NoFindingFromTheTimedStepsWhereTheyDoNotHoldIt) {
  std::vector<findings::Finding> f;
  // Under 5% of the step in nearly every step: 0.29 ms of 6.26 ms.
  FindDataloaderWaitFromAgents({LoaderLoop(290000)}, "train", 6261149, false, &f);
  EXPECT_TRUE(f.empty());
  // A device: the host's wait may overlap queued kernels (the window decides).
  FindDataloaderWaitFromAgents({LoaderLoop(3000000)}, "train", 6261149, true, &f);
  EXPECT_TRUE(f.empty());
  // Several ranks: the window's comparison of the ranks decides.
  FindDataloaderWaitFromAgents({LoaderLoop(3000000, 0), LoaderLoop(3000000, 1)}, "train",
                               6261149, false, &f);
  EXPECT_TRUE(f.empty());
  // An older agent: no 10th percentile recorded; or no site of the loader.
  FindDataloaderWaitFromAgents({LoaderLoop(-1)}, "train", 6261149, false, &f);
  EXPECT_TRUE(f.empty());
  AgentRecord no_site = LoaderLoop(3000000);
  no_site.dataloader_site.clear();
  FindDataloaderWaitFromAgents({no_site}, "train", 6261149, false, &f);
  EXPECT_TRUE(f.empty());
  // Another mode's steps.
  FindDataloaderWaitFromAgents({LoaderLoop(3000000)}, "eval", 6261149, false, &f);
  EXPECT_TRUE(f.empty());
  // The window found it: not twice.
  f = {WindowPriced(300000, 0.05)};
  FindDataloaderWaitFromAgents({LoaderLoop(3000000)}, "train", 6261149, false, &f);
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].source, "trace");
}

}  // namespace
}  // namespace fastenough::rundir
