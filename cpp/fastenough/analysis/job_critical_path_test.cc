// The job's critical path across ranks, on hand-made collectives (ns).
#include "fastenough/analysis/job_critical_path.h"

#include <gtest/gtest.h>

namespace fastenough::analysis {
namespace {

RankCollectives Rank(int rank, std::vector<CollectiveCall> calls, const std::string& name = "ncclAllReduce") {
  RankCollectives r;
  r.rank = rank;
  r.by_name[name] = std::move(calls);
  return r;
}

// Three all-reduces, ending together on both ranks (150, 500, 650):
//   rank 0: [100,150) [300,500) [630,650)
//   rank 1: [120,150) [480,500) [610,650)
// Last arrivals: rank 1 at 120 and 480, rank 0 at 630. From the first last
// arrival (120): transfer 150-120 = 30; rank 1's work 480-150 = 330, transfer
// 20; rank 0's work 630-500 = 130, transfer 20. Length 650-120 = 530 =
// work 460 + transfer 70. Waits: rank 0 (120-100) + (480-300) = 200, rank 1
// 630-610 = 20.
TEST(JobCriticalPath, TheLastArrivalGatesTheStretchBeforeEachCollective) {
  const RankCollectives r0 = Rank(0, {{100, 50}, {300, 200}, {630, 20}});
  const RankCollectives r1 = Rank(1, {{120, 30}, {480, 20}, {610, 40}});
  const JobCriticalPath p = AnalyzeJobCriticalPath({&r0, &r1});
  ASSERT_EQ(p.status, "ok");
  EXPECT_EQ(p.ranks, 2);
  EXPECT_EQ(p.collectives, 3);
  EXPECT_EQ(p.window_start_ns, 120);
  EXPECT_EQ(p.window_end_ns, 650);
  EXPECT_EQ(p.length_ns, 530);
  EXPECT_EQ(p.work_ns, 460);
  EXPECT_EQ(p.transfer_ns, 70);
  ASSERT_EQ(p.per_rank.size(), 2u);
  EXPECT_EQ(p.per_rank[0].gating_ns, 130);
  EXPECT_EQ(p.per_rank[0].gating_collectives, 1);
  EXPECT_EQ(p.per_rank[0].waited_ns, 200);
  EXPECT_EQ(p.per_rank[1].gating_ns, 330);
  EXPECT_EQ(p.per_rank[1].gating_collectives, 2);
  EXPECT_EQ(p.per_rank[1].waited_ns, 20);
  ASSERT_EQ(p.top.size(), 2u);
  EXPECT_EQ(p.top[0].rank, 1);
  EXPECT_EQ(p.top[0].ns, 330);
  EXPECT_EQ(p.top[0].count, 1);  // its first collective had no work before it
  EXPECT_EQ(p.top[1].rank, 0);
  EXPECT_EQ(p.top[1].ns, 130);
}

// Two streams: a reduce-scatter [100,300) overlapping an all-gather
// [200,400) (both ranks alike but for rank 1 starting each 10 later). Path:
// from 110, transfer of the first to 300 (190), then the second's transfer
// from 300 (not from its arrival at 210, which the first covered) to 400.
TEST(JobCriticalPath, OverlappingCollectivesAreNotCountedTwice) {
  RankCollectives r0, r1;
  r0.rank = 0;
  r1.rank = 1;
  r0.by_name["ncclReduceScatter"] = {{100, 200}};
  r0.by_name["ncclAllGather"] = {{200, 200}};
  r1.by_name["ncclReduceScatter"] = {{110, 190}};
  r1.by_name["ncclAllGather"] = {{210, 190}};
  const JobCriticalPath p = AnalyzeJobCriticalPath({&r0, &r1});
  ASSERT_EQ(p.status, "ok");
  EXPECT_EQ(p.length_ns, 290);
  EXPECT_EQ(p.work_ns, 0);
  EXPECT_EQ(p.transfer_ns, 290);
  EXPECT_EQ(p.per_rank[1].gating_collectives, 2);
  EXPECT_EQ(p.per_rank[0].waited_ns, 20);
  EXPECT_TRUE(p.top.empty());
}

TEST(JobCriticalPath, NeedsTwoRanksAndACollectiveOnEach) {
  const RankCollectives r0 = Rank(0, {{100, 50}});
  EXPECT_EQ(AnalyzeJobCriticalPath({&r0}).status, "one-rank");
  const RankCollectives r1 = Rank(1, {{100, 50}}, "ncclBroadcast");
  const JobCriticalPath p = AnalyzeJobCriticalPath({&r0, &r1});
  EXPECT_EQ(p.status, "no-collectives");
  EXPECT_EQ(p.length_ns, 0);
  EXPECT_EQ(p.per_rank.size(), 2u);
}

}  // namespace
}  // namespace fastenough::analysis
