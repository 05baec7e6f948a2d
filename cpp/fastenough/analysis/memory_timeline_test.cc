// Hand-computed memory timeline (bytes, ns). Device cuda:0, steps [0,100) [100,200):
//   ts 10  A +100  allocated 1100 reserved 2000   (start: 1100 - 100 = 1000)
//   ts 20  B +300  1400 / 2000
//   ts 30  A -100  1300 / 2000    A lived inside step 1: within_step 100
//   ts 120 C +500  1800 / 4000    the peak, inside aten::empty [115,125)
//   ts 150 B -300  1500 / 4000    B outlived step 1: outlive_step 300
//   ts 250 D +50   1550 / 4000    outside every step: outside_steps 50
//   ts 260 Z -200  1350 / 4000    Z was allocated before the trace: ignored
//   C is never freed: outlive_step += 500 -> 800 in 2 allocations.
// Step 1: start 1000, peak 1400, end 1300, reserved 2000, 2 allocations of 400 bytes.
// Step 2: start 1300, peak 1800, end 1500, reserved 4000, 1 allocation of 500 bytes.
// Peak 1800 at 120, reserved then 4000 (2200 of cache, not a leak).
#include "fastenough/analysis/memory_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fastenough/analysis/depth_test_builder.h"
#include "fastenough/analysis/rank_analysis.h"

namespace fastenough::analysis {
namespace {

using testing::DepthBuilder;

TEST(MemoryTimelineTest, PeakLifetimesAndSteps) {
  DepthBuilder b;
  b.Properties(0, 4, 2048, 32, /*total_memory=*/10000);
  b.Annotation("ProfilerStep#1", 0, 100);
  b.Annotation("ProfilerStep#2", 100, 100);
  b.Op("aten::linear", 100, 90);
  b.Op("aten::empty", 115, 10);
  b.Memory(10, 0xA, 100, 1100, 2000);
  b.Memory(20, 0xB, 300, 1400, 2000);
  b.Memory(30, 0xA, -100, 1300, 2000);
  b.Memory(120, 0xC, 500, 1800, 4000);
  b.Memory(150, 0xB, -300, 1500, 4000);
  b.Memory(250, 0xD, 50, 1550, 4000);
  b.Memory(260, 0xF, -200, 1350, 4000);
  b.Memory(40, 0x1, 64, 64, 64, /*device_type=*/0, /*device_id=*/-1);  // host memory
  const RankAnalysis r = AnalyzeRank(b.Finish());
  ASSERT_EQ(r.memory.size(), 2u);
  const MemoryTimeline& m = r.memory[0];
  EXPECT_EQ(m.device, "cuda:0");
  EXPECT_EQ(m.capacity_bytes, 10000);
  EXPECT_EQ(m.event_count, 7);
  EXPECT_EQ(m.alloc_count, 4);
  EXPECT_EQ(m.free_count, 3);
  EXPECT_EQ(m.start_allocated_bytes, 1000);
  EXPECT_EQ(m.live_at_start_bytes, 1000);
  EXPECT_EQ(m.peak_allocated_bytes, 1800);
  EXPECT_EQ(m.peak_ts_ns, 120);
  EXPECT_EQ(m.peak_op, "aten::empty");
  EXPECT_EQ(m.reserved_at_peak_bytes, 4000);
  EXPECT_EQ(m.peak_reserved_bytes, 4000);
  EXPECT_EQ(m.end_allocated_bytes, 1350);
  EXPECT_EQ(m.end_reserved_bytes, 4000);
  EXPECT_EQ(m.within_step_bytes, 100);
  EXPECT_EQ(m.within_step_count, 1);
  EXPECT_EQ(m.outlive_step_bytes, 800);
  EXPECT_EQ(m.outlive_step_count, 2);
  EXPECT_EQ(m.outside_steps_bytes, 50);
  EXPECT_EQ(m.outside_steps_count, 1);
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].start_allocated_bytes, 1000);
  EXPECT_EQ(m.steps[0].peak_allocated_bytes, 1400);
  EXPECT_EQ(m.steps[0].end_allocated_bytes, 1300);
  EXPECT_EQ(m.steps[0].peak_reserved_bytes, 2000);
  EXPECT_EQ(m.steps[0].alloc_count, 2);
  EXPECT_EQ(m.steps[0].alloc_bytes, 400);
  EXPECT_EQ(m.steps[1].start_allocated_bytes, 1300);
  EXPECT_EQ(m.steps[1].peak_allocated_bytes, 1800);
  EXPECT_EQ(m.steps[1].end_allocated_bytes, 1500);
  EXPECT_EQ(m.steps[1].peak_reserved_bytes, 4000);
  EXPECT_EQ(m.steps[1].alloc_bytes, 500);
  // 120 slices of [10, 260]: the first holds ts 10 (1100); the maximum is the peak.
  ASSERT_EQ(m.timeline.size(), kMemoryTimelinePoints);
  EXPECT_EQ(m.timeline[0], std::make_pair(int64_t{10}, int64_t{1100}));
  int64_t top = 0;
  for (const auto& [t, v] : m.timeline) top = std::max(top, v);
  EXPECT_EQ(top, 1800);
  EXPECT_EQ(m.timeline.back().second, 1550);  // the last slice holds D (1550) then Z (1350)
  EXPECT_EQ(r.memory[1].device, "cpu");
  EXPECT_EQ(r.memory[1].peak_allocated_bytes, 64);
}

TEST(MemoryTimelineTest, NoMemoryEvents) {
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 100);
  EXPECT_TRUE(AnalyzeRank(b.Finish()).memory.empty());
}

}  // namespace
}  // namespace fastenough::analysis
