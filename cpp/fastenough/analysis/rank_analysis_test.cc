// Hand-computed answers for ExampleStore() (test_store.h), times in ns.
//
// Device 0, stream 7: K1 [100,150) launch [80,90); K2 [160,165) launch [95,105);
//   K3 [300,400) launch [200,220); memcpy [500,540) launch [410,415).
// Device 0, stream 8: N1 nccl [350,450) launch [340,345); memset [445,465);
//   K4 [600,610) without launch.
// Device 1, stream 7: K5 [1000,1030) without launch.
//
// Device 0: union = [100,150) [160,165) [300,465) [500,540) [600,610)
//   busy = 50+5+165+40+10 = 270; span = 610-100 = 510; idle = 240
//   compute = 50+5+100+10 = 165; comm = [350,450)-[300,400) = 50
//   memcpy = 40; memset = [445,465)-[350,450) = 15; 165+50+40+15 = 270
//   kernels 5 (1 comm), short: K2 (5 < 10) -> 1
// Stream 7 gaps: 150->160 (10, launch 95 < 150, 10 < 30) kernel_wait;
//   165->300 (135, launch 200 > 165) host_wait; 400->500 (100, launch 410 > 400) host_wait
// Stream 8 gaps: memset starts at 445 < 450 (no gap); 465->600 (135, no launch,
//   < 30 us) kernel_wait
// Launches: delays (ts - launch ts) 20, 65, 100, 10 -> median 42.5, p90 89.5
//   queue (ts - launch end) 10, 55, 80, 5 -> median 32.5, p90 72.5
// Steps: #1 [50,200) busy 50+5 = 55; #2 [200,450) busy [300,450) = 150;
//   #3 [450,700) busy 15+40+10 = 65. Durations 150, 250, 250: median 250,
//   p10 = 150 + 0.2*100 = 170, p90 = 250; steady (drop #1): 250, 250.
// CPU ops (tid 1): linear [60,160) > addmm [70,110) > copy_ [75,85); addmm [120,150);
//   tid 2: addmm [200,250). linear self = 100-40-30 = 30; addmm total 120, self 110.
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/gemm_patterns.h"

#include <gtest/gtest.h>

#include "fastenough/analysis/test_store.h"

namespace fastenough::analysis {
namespace {

TEST(RankAnalysisTest, DeviceBreakdown) {
  trace::EventStore store = testing::ExampleStore();
  RankAnalysis r = AnalyzeRank(store);
  ASSERT_EQ(r.devices.size(), 2u);
  const DeviceBreakdown& d = r.devices[0];
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.start_ns, 100);
  EXPECT_EQ(d.end_ns, 610);
  EXPECT_EQ(d.span_ns, 510);
  EXPECT_EQ(d.busy_ns, 270);
  EXPECT_EQ(d.idle_ns, 240);
  EXPECT_EQ(d.compute_ns, 165);
  EXPECT_EQ(d.comm_ns, 50);
  EXPECT_EQ(d.memcpy_ns, 40);
  EXPECT_EQ(d.memset_ns, 15);
  EXPECT_EQ(d.compute_ns + d.comm_ns + d.memcpy_ns + d.memset_ns, d.busy_ns);
  EXPECT_EQ(d.kernel_count, 5);
  EXPECT_EQ(d.comm_kernel_count, 1);
  EXPECT_EQ(d.memcpy_count, 1);
  EXPECT_EQ(d.memset_count, 1);
  EXPECT_EQ(d.short_kernel_count, 1);
  EXPECT_EQ(d.idle_breakdown.host_wait_ns, 235);
  EXPECT_EQ(d.idle_breakdown.kernel_wait_ns, 10 + 135);
  EXPECT_EQ(d.idle_breakdown.other_ns, 0);
  // Device-level gaps of the union [100,150) [160,165) [300,465) [500,540) [600,610):
  // 150-160 K2 launched at 95, before the gap: kernel wait 10; 165-300 K3 launched
  // at 200, inside the gap: host wait 135; 465-500 memcpy launched at 410: kernel
  // wait 35; 540-600 K4 has no launch: kernel wait 60. 135 + 105 = idle_ns 240.
  EXPECT_EQ(d.device_idle.host_wait_ns, 135);
  EXPECT_EQ(d.device_idle.kernel_wait_ns, 10 + 35 + 60);
  EXPECT_EQ(d.device_idle.other_ns, 0);
  EXPECT_EQ(d.device_idle.total_ns(), d.idle_ns);

  ASSERT_EQ(d.streams.size(), 2u);
  const StreamIdle& s7 = d.streams[0];
  EXPECT_EQ(s7.stream, 7);
  EXPECT_EQ(s7.op_count, 4);
  EXPECT_EQ(s7.busy_ns, 50 + 5 + 100 + 40);
  ASSERT_EQ(s7.gaps.size(), 3u);
  EXPECT_EQ(s7.gaps[0].start_ns, 150);
  EXPECT_EQ(s7.gaps[0].end_ns, 160);
  EXPECT_EQ(s7.gaps[0].kind, GapKind::kKernelWait);
  EXPECT_EQ(s7.gaps[1].kind, GapKind::kHostWait);
  EXPECT_EQ(s7.gaps[1].length(), 135);
  EXPECT_EQ(s7.gaps[2].kind, GapKind::kHostWait);
  EXPECT_EQ(s7.gaps[2].length(), 100);
  const StreamIdle& s8 = d.streams[1];
  EXPECT_EQ(s8.stream, 8);
  ASSERT_EQ(s8.gaps.size(), 1u);
  EXPECT_EQ(s8.gaps[0].start_ns, 465);
  EXPECT_EQ(s8.gaps[0].kind, GapKind::kKernelWait);
  EXPECT_EQ(s8.idle.kernel_wait_ns, 135);

  const DeviceBreakdown& d1 = r.devices[1];
  EXPECT_EQ(d1.device, 1);
  EXPECT_EQ(d1.span_ns, 30);
  EXPECT_EQ(d1.busy_ns, 30);
  EXPECT_EQ(d1.idle_ns, 0);
  EXPECT_EQ(d1.idle_breakdown.total_ns(), 0);
}

TEST(RankAnalysisTest, KernelWaitThresholdIsAnOption) {
  trace::EventStore store = testing::ExampleStore();
  RankOptions o;
  o.breakdown.kernel_wait_threshold_ns = 5;  // the 10 and 135 ns gaps become other
  RankAnalysis r = AnalyzeRank(store, o);
  EXPECT_EQ(r.devices[0].idle_breakdown.kernel_wait_ns, 0);
  EXPECT_EQ(r.devices[0].idle_breakdown.other_ns, 145);
  o.breakdown.kernel_wait_threshold_ns = 135;  // strictly shorter: 135 is other
  r = AnalyzeRank(store, o);
  EXPECT_EQ(r.devices[0].idle_breakdown.kernel_wait_ns, 10);
  EXPECT_EQ(r.devices[0].idle_breakdown.other_ns, 135);
}

TEST(RankAnalysisTest, LaunchStats) {
  trace::EventStore store = testing::ExampleStore();
  RankAnalysis r = AnalyzeRank(store);
  EXPECT_EQ(r.launch.kernel_count, 6);
  EXPECT_EQ(r.launch.launched_count, 4);
  EXPECT_EQ(r.launch.short_kernel_count, 1);
  EXPECT_DOUBLE_EQ(r.launch.launch_delay.median, 42.5);
  EXPECT_DOUBLE_EQ(r.launch.launch_delay.p90, 89.5);
  EXPECT_DOUBLE_EQ(r.launch.queue_delay.median, 32.5);
  EXPECT_DOUBLE_EQ(r.launch.queue_delay.p90, 72.5);
}

TEST(RankAnalysisTest, Steps) {
  trace::EventStore store = testing::ExampleStore();
  RankAnalysis r = AnalyzeRank(store);
  ASSERT_EQ(r.steps.steps.size(), 3u);
  EXPECT_EQ(r.steps.steps[0].window.number, 1);
  EXPECT_EQ(r.steps.steps[1].window.start_ns, 200);  // host range, not the device mirror
  EXPECT_EQ(r.steps.steps[0].device_busy_ns, 55);
  EXPECT_EQ(r.steps.steps[1].device_busy_ns, 150);
  EXPECT_EQ(r.steps.steps[2].device_busy_ns, 65);
  EXPECT_EQ(r.steps.duration.count, 3);
  EXPECT_DOUBLE_EQ(r.steps.duration.median, 250);
  EXPECT_DOUBLE_EQ(r.steps.duration.p10, 170);
  EXPECT_DOUBLE_EQ(r.steps.duration.p90, 250);
  EXPECT_EQ(r.steps.steady_begin, 1u);
  EXPECT_EQ(r.steps.steady_duration.count, 2);
  EXPECT_DOUBLE_EQ(r.steps.steady_duration.median, 250);
}

TEST(RankAnalysisTest, TopKernelsAndOps) {
  trace::EventStore store = testing::ExampleStore();
  RankAnalysis r = AnalyzeRank(store);
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].name, "gemm_a");
  EXPECT_EQ(r.kernels[0].count, 3);
  EXPECT_EQ(r.kernels[0].total_ns, 180);
  EXPECT_DOUBLE_EQ(r.kernels[0].mean_ns, 60);
  EXPECT_DOUBLE_EQ(r.kernels[0].share_of_busy, 180.0 / 300.0);  // busy 270 + 30
  EXPECT_EQ(r.kernels[1].name, "ncclDevKernel_AllReduce_Sum_f32");
  EXPECT_EQ(r.kernels[2].name, "elementwise");
  EXPECT_DOUBLE_EQ(r.kernels[2].mean_ns, 7.5);

  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.ops[0].name, "aten::addmm");
  EXPECT_EQ(r.ops[0].count, 3);
  EXPECT_EQ(r.ops[0].total_ns, 120);
  EXPECT_EQ(r.ops[0].self_ns, 110);
  EXPECT_EQ(r.ops[1].name, "aten::linear");
  EXPECT_EQ(r.ops[1].self_ns, 30);
  EXPECT_EQ(r.ops[2].name, "aten::copy_");
  EXPECT_EQ(r.ops[2].self_ns, 10);
}

TEST(RankAnalysisTest, EmptyStore) {
  trace::EventStore store;
  store.Finalize();
  RankAnalysis r = AnalyzeRank(store);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.steps.duration.count, 0);
  EXPECT_EQ(r.launch.kernel_count, 0);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_TRUE(r.ops.empty());
}

TEST(RankAnalysisTest, CommunicationByNameOrCategory) {
  testing::StoreBuilder b;
  b.Kernel("RCCL_allgather", 0, 10, 1).Kernel("void at::native::fooNcClbar", 20, 10, 1);
  b.Kernel("hcclAllReduce", 40, 10, 1).Kernel("gemm", 60, 10, 1);
  trace::EventStore s = b.Build();
  RankAnalysis r = AnalyzeRank(s);
  EXPECT_EQ(r.devices[0].comm_kernel_count, 3);
  EXPECT_EQ(r.devices[0].comm_ns, 30);
  EXPECT_EQ(r.devices[0].compute_ns, 10);
}

}  // namespace
}  // namespace fastenough::analysis

namespace fastenough::analysis {
namespace {

TEST(GemmFlops, HandComputedShapes) {
  EXPECT_EQ(MatmulFlops("aten::linear", "[[64, 128], [256, 128], [256]]"), 2LL * 64 * 128 * 256);
  // Leading dims multiply: [8, 16, 32] x [64, 32]^T
  EXPECT_EQ(MatmulFlops("aten::linear", "[[8, 16, 32], [64, 32], []]"), 2LL * 8 * 16 * 32 * 64);
  EXPECT_EQ(MatmulFlops("aten::mm", "[[4, 5], [5, 6]]"), 2LL * 4 * 5 * 6);
  EXPECT_EQ(MatmulFlops("aten::addmm", "[[6], [4, 5], [5, 6], [], []]"), 2LL * 4 * 5 * 6);
  EXPECT_EQ(MatmulFlops("aten::bmm", "[[3, 4, 5], [3, 5, 6]]"), 2LL * 3 * 4 * 5 * 6);
  EXPECT_EQ(MatmulFlops("aten::linear", ""), -1);
  EXPECT_EQ(MatmulFlops("aten::mm", "[[4, 5, 6], [5, 6]]"), -1);
  EXPECT_EQ(MatmulFlops("aten::conv2d", "[[1, 3, 8, 8]]"), -1);
}

}  // namespace
}  // namespace fastenough::analysis
