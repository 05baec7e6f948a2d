// A rank the scheduler kept waiting for cores is not named the program's
// straggler (rundir/scheduler_wait.h): the session-8 CI rehearsal's shape, two
// equal gloo ranks beside busy loops, rank 1 named for 3.9 ms a step.
#include "fastenough/rundir/scheduler_wait.h"

#include <gtest/gtest.h>

namespace fastenough::rundir {
namespace {

// A rank whose main thread, over a 12-step window, waited for a core and worked
// on one these many ns a step.
AgentRecord Rank(int64_t rank, int64_t wait_per_step, int64_t cpu_per_step = 5000000) {
  AgentRecord a;
  a.role = "rank";
  a.rank = rank;
  a.traced = true;
  a.profile_steps = 12;
  a.profile_run_delay_ns = 12 * wait_per_step;
  a.profile_thread_cpu_ns = 12 * cpu_per_step;
  return a;
}

findings::Finding Named(const char* code, int64_t rank, int64_t per_step_ns) {
  findings::Finding f;
  f.code = code;
  f.evidence.emplace_back("rank", rank);
  f.saving.per_step_ns = per_step_ns;
  return f;
}

Measurement Complete() {
  Measurement m;
  m.status = "complete";
  return m;
}

TEST(RundirSchedulerWait, ARankThatWaitedForCoresIsNotTheProgramsStraggler) {
  // Rank 1 waited 4.0 ms a step for a core, rank 0 0.2 ms; the findings claim
  // 3.9 ms a step of rank 1's lateness and extra work.
  std::vector<findings::Finding> f = {Named("straggler-rank", 1, 3900000),
                                      Named("load-imbalance", 1, 3900000),
                                      Named("sync-in-loop", 1, 3900000)};
  Measurement m = Complete();
  LeaveOutRankFindingsTheSchedulerExplains({Rank(0, 200000), Rank(1, 4000000)}, false, &f, &m);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "sync-in-loop");
  EXPECT_EQ(m.status, "partial");
  ASSERT_EQ(m.reasons.size(), 1u);
  EXPECT_EQ(m.reasons[0].code, "rank-waited-for-cores");
  EXPECT_NE(m.reasons[0].text.find("rank 1 waited for a core 4.00 ms a profiled step (the other "
                                   "ranks 200.0 µs) and worked 5.00 ms on one (the others "
                                   "5.00 ms): the machine, not the program, kept it late, so it "
                                   "is not named straggler-rank or load-imbalance (up to 3.90 "
                                   "ms a step claimed)"),
            std::string::npos)
      << m.reasons[0].text;
}

TEST(RundirSchedulerWait, AStragglerWithMoreWorkOrASleepIsKept) {
  // traceml's fault injection: rank 1 burns 30 ms in its backward (CPU work),
  // rank 2 sleeps 40 ms; neither waits for a core more than the others.
  std::vector<findings::Finding> f = {Named("straggler-rank", 1, 30000000),
                                      Named("load-imbalance", 2, 40000000)};
  Measurement m = Complete();
  LeaveOutRankFindingsTheSchedulerExplains(
      {Rank(0, 1000000), Rank(1, 3000000, 35000000), Rank(2, 1000000)}, false, &f, &m);
  EXPECT_EQ(f.size(), 2u);
  // test_in_job_analysis's heavy rank on a loaded machine: 15 ms more matmuls a
  // step, and for them it waited 24 ms a step for a core against 7.4: more
  // work, so kept.
  f = {Named("load-imbalance", 1, 25600000)};
  LeaveOutRankFindingsTheSchedulerExplains({Rank(0, 7400000, 2000000), Rank(1, 24000000, 30000000)},
                                           false, &f, &m);
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(m.status, "complete");
  EXPECT_TRUE(m.reasons.empty());
}

TEST(RundirSchedulerWait, ADeviceJobOrAnUnknownWaitDecidesNothing) {
  std::vector<findings::Finding> f = {Named("straggler-rank", 1, 3900000)};
  Measurement m = Complete();
  LeaveOutRankFindingsTheSchedulerExplains({Rank(0, 0), Rank(1, 4000000)}, true, &f, &m);
  EXPECT_EQ(f.size(), 1u);
  AgentRecord unknown = Rank(1, 4000000);
  unknown.profile_run_delay_ns.reset();  // an older agent, or no schedstat
  LeaveOutRankFindingsTheSchedulerExplains({Rank(0, 0), unknown}, false, &f, &m);
  EXPECT_EQ(f.size(), 1u);
  EXPECT_TRUE(m.reasons.empty());
}

}  // namespace
}  // namespace fastenough::rundir
