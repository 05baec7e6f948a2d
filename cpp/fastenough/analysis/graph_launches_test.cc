// Graph replays and compiled regions, hand-made (ns).
#include "fastenough/analysis/graph_launches.h"

#include <gtest/gtest.h>

#include "fastenough/analysis/depth_test_builder.h"
#include "fastenough/analysis/device_breakdown.h"

namespace fastenough::analysis {
namespace {

using testing::DepthBuilder;

// Replay 1: cudaGraphLaunch [100,110) corr 10 -> kernels [200,300) and
// [300,350): linked to the launch and counted as device work (busy 150).
// Replay 2: cudaGraphLaunch [400,410) corr 11 without kernels while the
// device ran an ordinary kernel later ([500,600)): recorded without its kernels.
// Replay 3: cudaGraphLaunch [700,710) after the last device activity (600):
// its kernels fell outside the window, not missing.
TEST(GraphLaunchesTest, LinkedAndMissingReplays) {
  DepthBuilder b;
  b.Runtime("cudaGraphLaunch", 100, 10, 10);
  b.Kernel("triton_poi_fused_0", 200, 100, 7, 10);
  b.Kernel("triton_poi_fused_1", 300, 50, 7, 10);
  b.Runtime("cudaGraphLaunch", 400, 10, 11);
  b.Runtime("cudaLaunchKernel", 450, 10, 12);
  b.Kernel("gemm", 500, 100, 7, 12);
  b.Runtime("cudaGraphLaunch", 700, 10, 13);
  trace::EventStore& s = b.Finish();
  EXPECT_EQ(s.launch_row[1], 0);  // the replay's kernels point at their launch
  EXPECT_EQ(s.launch_row[2], 0);
  const GraphStats g = AnalyzeGraphLaunches(s);
  EXPECT_EQ(g.launch_count, 3);
  EXPECT_EQ(g.launches_with_activity, 1);
  EXPECT_EQ(g.launches_without_activity, 1);
  EXPECT_TRUE(g.kernels_missing());
  EXPECT_EQ(g.device_op_count, 2);
  EXPECT_EQ(g.kernel_count, 2);
  EXPECT_EQ(g.device_ns, 150);
  const auto devices = AnalyzeDevices(s, DeviceActivityIndex(s));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].busy_ns, 250);  // graph kernels are device work
}

// Torch-Compiled Region [0,1000) > CompiledFunction [100,500):
//   cuLaunchKernel [150,160) -> triton_poi_fused_add_0 [200,210)  (CompiledFunction)
//   cuLaunchKernel [600,610) -> triton_red_fused_sum_1 [700,750)  (the region)
// Outside: cudaLaunchKernel [1100,1110) -> triton_per_x [1200,1230), and a
// gemm [1300,1400) launched at [1250,1260).
TEST(GraphLaunchesTest, CompiledRegions) {
  DepthBuilder b;
  b.Annotation("Torch-Compiled Region: 0/0", 0, 1000);
  b.Op("CompiledFunction", 100, 400);
  b.Host(trace::EventKind::kDriver, "cuLaunchKernel", 150, 10, 1);
  b.Kernel("triton_poi_fused_add_0", 200, 10, 7, 1);
  b.Host(trace::EventKind::kDriver, "cuLaunchKernel", 600, 10, 2);
  b.Kernel("triton_red_fused_sum_1", 700, 50, 7, 2);
  b.Runtime("cudaLaunchKernel", 1100, 10, 3);
  b.Kernel("triton_per_x", 1200, 30, 7, 3);
  b.Runtime("cudaLaunchKernel", 1250, 10, 4);
  b.Kernel("gemm", 1300, 100, 7, 4);
  const CompiledRegions c = AnalyzeCompiledRegions(b.Finish());
  ASSERT_EQ(c.regions.size(), 2u);
  EXPECT_EQ(c.regions[0].name, "Torch-Compiled Region: 0/0");
  EXPECT_EQ(c.regions[0].instances, 1);
  EXPECT_EQ(c.regions[0].kernel_count, 1);
  EXPECT_EQ(c.regions[0].triton_kernel_count, 1);
  EXPECT_EQ(c.regions[0].kernel_ns, 50);
  EXPECT_EQ(c.regions[1].name, "CompiledFunction");
  EXPECT_EQ(c.regions[1].kernel_ns, 10);
  EXPECT_EQ(c.triton_kernel_count, 3);
  EXPECT_EQ(c.triton_kernels_outside, 1);
}

}  // namespace
}  // namespace fastenough::analysis
