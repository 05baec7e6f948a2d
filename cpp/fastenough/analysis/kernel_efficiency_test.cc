// Hand-computed kernel efficiency (ns, device 0: 4 SMs, 2048 threads/SM, warp 32).
//
// Steps [0,1000) [1000,2000) (both steady: two steps).
//   K1 ampere_sgemm_128x64_nn      [0,400)     s7  blocks/SM 0.5 warps 2 occ 10%
//   K2 elementwise                 [200,600)   s8  blocks/SM 2.0 warps 8 occ 50%
//   K3 sm80_xmma_gemm_bf16bf16     [1000,1500) s7  blocks/SM 1.0 warps 4 occ 25%  (tensor core)
//   K4 reduce                      [1800,2200) s7  no launch figures
// Step 1: busy [0,600) = 600 -> utilisation 0.6. SM curve: [0,200) 0.5,
//   [200,400) min(2.5,1) = 1, [400,600) min(2,1) = 1 -> 100+200+200 = 500 -> 0.5.
//   Occupancy (10*400 + 50*400) / 800 = 30. Kernel time 800, tensor core 0.
// Step 2: busy [1000,1500)+[1800,2000) = 700 -> 0.7. SM 500 -> 0.5.
//   Occupancy K3 only: 25. Kernel time 500+200 = 700, tensor core 500.
// Steady: window 2000, busy 1300 -> 0.65, SM 1000/2000 = 0.5,
//   occupancy (4000+20000+12500)/1300 = 28.0769..., tensor core 500/1500.
#include "fastenough/analysis/kernel_efficiency.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fastenough/analysis/depth_test_builder.h"
#include "fastenough/analysis/rank_analysis.h"

namespace fastenough::analysis {
namespace {

using testing::DepthBuilder;
using testing::kAbsent;

trace::EventStore& Example(DepthBuilder& b) {
  b.Properties(0, 4, 2048, 32);
  b.Annotation("ProfilerStep#1", 0, 1000);
  b.Annotation("ProfilerStep#2", 1000, 1000);
  b.Kernel("ampere_sgemm_128x64_nn", 0, 400, 7);
  b.Args(0.5, 2, 10);
  b.Kernel("elementwise", 200, 400, 8);
  b.Args(2.0, 8, 50);
  b.Kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 1000, 500, 7);
  b.Args(1.0, 4, 25);
  b.Kernel("reduce", 1800, 400, 7);
  return b.Finish();
}

TEST(KernelEfficiencyTest, PerStepAndSteady) {
  DepthBuilder b;
  const RankAnalysis r = AnalyzeRank(Example(b));
  const KernelEfficiency& e = r.efficiency;
  EXPECT_TRUE(e.has_launch_args);
  ASSERT_EQ(e.devices.size(), 1u);
  const DeviceEfficiency& d = e.devices[0];
  EXPECT_EQ(d.num_sms, 4);
  EXPECT_EQ(d.max_warps_per_sm, 64);
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.steps[0].kernel_busy_ns, 600);
  EXPECT_DOUBLE_EQ(d.steps[0].gpu_utilization, 0.6);
  EXPECT_DOUBLE_EQ(d.steps[0].sm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(d.steps[0].achieved_occupancy_pct, 30);
  EXPECT_EQ(d.steps[0].kernel_ns, 800);
  EXPECT_DOUBLE_EQ(d.steps[0].tensor_core_share, 0);
  EXPECT_DOUBLE_EQ(d.steps[1].gpu_utilization, 0.7);
  EXPECT_DOUBLE_EQ(d.steps[1].sm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(d.steps[1].achieved_occupancy_pct, 25);
  EXPECT_EQ(d.steps[1].kernel_ns, 700);
  EXPECT_EQ(d.steps[1].tensor_core_ns, 500);
  EXPECT_EQ(d.steady.window_ns, 2000);
  EXPECT_DOUBLE_EQ(d.steady.gpu_utilization, 0.65);
  EXPECT_DOUBLE_EQ(d.steady.sm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(d.steady.achieved_occupancy_pct, 36500.0 / 1300.0);
  EXPECT_DOUBLE_EQ(d.steady.tensor_core_share, 500.0 / 1500.0);
}

TEST(KernelEfficiencyTest, PerKernelFigures) {
  DepthBuilder b;
  const RankAnalysis r = AnalyzeRank(Example(b));
  const auto& k = r.efficiency.kernels;
  ASSERT_EQ(k.size(), 4u);
  // Heaviest first: K3 500, then K1/K2/K4 400 by name.
  EXPECT_EQ(k[0].name, "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
  EXPECT_TRUE(k[0].tensor_core);
  EXPECT_EQ(k[1].name, "ampere_sgemm_128x64_nn");
  EXPECT_FALSE(k[1].tensor_core);
  EXPECT_DOUBLE_EQ(k[1].occupancy_pct, 10);
  EXPECT_DOUBLE_EQ(k[1].blocks_per_sm, 0.5);
  EXPECT_DOUBLE_EQ(k[1].warps_per_sm, 2);
  EXPECT_DOUBLE_EQ(k[1].share_of_kernel_time, 400.0 / 1500.0);
  EXPECT_EQ(k[3].name, "reduce");
  EXPECT_TRUE(std::isnan(k[3].occupancy_pct));
}

// Without launch figures (ROCm): utilisation only, the rest absent.
TEST(KernelEfficiencyTest, NoLaunchFigures) {
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 100);
  b.Kernel("Cijk_Alik_Bljk_SB_MT64x16x32_MI16x16x1_SN", 0, 50, 0);
  const RankAnalysis r = AnalyzeRank(b.Finish());
  const KernelEfficiency& e = r.efficiency;
  EXPECT_FALSE(e.has_launch_args);
  ASSERT_EQ(e.devices.size(), 1u);
  EXPECT_DOUBLE_EQ(e.devices[0].steady.gpu_utilization, 0.5);
  EXPECT_TRUE(std::isnan(e.devices[0].steady.sm_efficiency));
  EXPECT_TRUE(std::isnan(e.devices[0].steady.achieved_occupancy_pct));
  EXPECT_DOUBLE_EQ(e.devices[0].steady.tensor_core_share, 1.0);  // an MFMA tile
}

}  // namespace
}  // namespace fastenough::analysis
