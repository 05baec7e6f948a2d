// Hand-computed per-step breakdowns (ns). The arithmetic is beside each case.
#include "fastenough/analysis/step_breakdown.h"

#include <gtest/gtest.h>

#include "fastenough/analysis/depth_test_builder.h"
#include "fastenough/analysis/rank_analysis.h"

namespace fastenough::analysis {
namespace {

using testing::DepthBuilder;
using K = trace::EventKind;

size_t C(StepCategory c) { return static_cast<size_t>(c); }

// Step 1 [0,1000):
//   DataLoader "enumerate(DataLoader)#..__next__" [0,80)
//   cpu_op aten::linear [100,600) > cudaLaunchKernel [200,250) -> gemm [300,700) s7
//   cudaMemcpyAsync [650,700) -> memcpy [700,800) s7; memset [750,850) s8 (no launch)
//   cpu_op nccl:all_reduce [850,950) > launch [860,870) -> ncclDevKernel [900,980) s9
// Priority: Kernel [300,700) 400; Memcpy [700,800) 100; Memset [800,850) 50;
//   Communication [850,980) 130; Runtime [200,250) 50 (the others lie under kernel
//   and communication); DataLoader [0,80) 80; CPU Exec [100,200)+[250,300) 150;
//   Other [80,100)+[980,1000) 40. Sum 1000.
// Step 2 [1000,2000): aten::add [1100,1300) > launches [1150,1160) [1170,1180)
//   [1190,1195) -> add [1200,2100) mul [2100,2150) relu [2150,2160) on s7.
//   Kernel [1200,2000) 800; Runtime 25; CPU Exec 200-25-100 = 75; Other [1000,1100) 100.
// Plugin windows: step 1 launched 3 ops ending by 980 -> [0,1000); step 2
//   [1000, 2160) (its last op ends at 2160): Kernel [1200,2160) 960, Runtime 25,
//   CPU Exec 75, Other 100. Step 2 launched 3 >= 0.8 * 3: both kept.
trace::EventStore& TwoSteps(DepthBuilder& b) {
  b.Annotation("ProfilerStep#1", 0, 1000);
  b.Annotation("ProfilerStep#2", 1000, 1000);
  b.Annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 80);
  b.Op("aten::linear", 100, 500);
  b.Runtime("cudaLaunchKernel", 200, 50, 1);
  b.Kernel("gemm", 300, 400, 7, 1);
  b.Runtime("cudaMemcpyAsync", 650, 50, 2);
  b.Device(K::kMemcpy, "Memcpy HtoD (Pinned -> Device)", 700, 100, 7, 2);
  b.Device(K::kMemset, "Memset (Device)", 750, 100, 8);
  b.Op("nccl:all_reduce", 850, 100);
  b.Runtime("cudaLaunchKernel", 860, 10, 3);
  b.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 900, 80, 9, 3);
  b.Op("aten::add", 1100, 200);
  b.Runtime("cudaLaunchKernel", 1150, 10, 4);
  b.Kernel("add", 1200, 900, 7, 4);
  b.Runtime("cudaLaunchKernel", 1170, 10, 5);
  b.Kernel("mul", 2100, 50, 7, 5);
  b.Runtime("cudaLaunchKernel", 1190, 5, 6);
  b.Kernel("relu", 2150, 10, 7, 6);
  return b.Finish();
}

TEST(StepBreakdownTest, PriorityBetweenCategories) {
  DepthBuilder b;
  const RankAnalysis r = AnalyzeRank(TwoSteps(b));
  const StepBreakdown& sb = r.step_breakdown;
  ASSERT_EQ(sb.steps.size(), 2u);
  EXPECT_FALSE(sb.whole_trace);
  const CategoryNs want1 = {400, 100, 50, 130, 50, 80, 150, 40};
  EXPECT_EQ(sb.steps[0].ns, want1);
  EXPECT_EQ(sb.steps[0].number, 1);
  const CategoryNs want2 = {800, 0, 0, 0, 25, 0, 75, 100};
  EXPECT_EQ(sb.steps[1].ns, want2);
  EXPECT_EQ(sb.steps[0].ns[C(StepCategory::kOther)], 40);
}

TEST(StepBreakdownTest, WorkItemsAreTheStepsOpsAndKernelsButCommunication) {
  // Step 1: aten::linear and its gemm (the DataLoader, the runtime calls, the
  // memcpy, the memset and the all-reduce with its kernel are not items);
  // step 2: aten::add and its three kernels, counted where they were launched
  // (mul and relu run after the host step ended).
  DepthBuilder b;
  const RankAnalysis r = AnalyzeRank(TwoSteps(b));
  ASSERT_EQ(r.step_breakdown.steps.size(), 2u);
  EXPECT_EQ(r.step_breakdown.steps[0].work_items, 2);
  EXPECT_EQ(r.step_breakdown.steps[1].work_items, 4);
}

TEST(StepBreakdownTest, HostWorkIsTheHostOpsLessTheirOwnThreadsCollectives) {
  // A CPU rank over gloo: the main thread's matmuls run while gloo's thread
  // all-reduces; the breakdown books the overlap as communication, the host
  // work keeps the matmuls. The main thread's own wait in a collective is not work.
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 1000);
  b.Op("aten::mm", 100, 400, /*tid=*/1);
  b.Op("gloo:all_reduce", 200, 500, /*tid=*/2);
  b.Op("c10d::allreduce_", 600, 300, /*tid=*/1);
  b.Op("aten::view", 650, 10, /*tid=*/1);  // inside the main thread's own collective
  const RankAnalysis r = AnalyzeRank(b.Finish());
  ASSERT_EQ(r.step_breakdown.steps.size(), 1u);
  const auto& row = r.step_breakdown.steps[0];
  EXPECT_EQ(row.ns[C(StepCategory::kCpuExec)], 100);  // 100..200 only
  EXPECT_EQ(row.host_work_ns, 400);                    // the matmul, whole
}

TEST(StepBreakdownTest, PluginStretchesStepsToTheirDeviceWork) {
  DepthBuilder b;
  const RankAnalysis r = AnalyzeRank(TwoSteps(b));
  const StepBreakdown& sb = r.step_breakdown;
  ASSERT_EQ(sb.steps.size(), 2u);
  EXPECT_TRUE(sb.steps[0].plugin_kept);
  EXPECT_EQ(sb.steps[0].plugin_start_ns, 0);
  EXPECT_EQ(sb.steps[0].plugin_end_ns, 1000);
  EXPECT_EQ(sb.steps[0].plugin_ns, sb.steps[0].ns);
  EXPECT_TRUE(sb.steps[1].plugin_kept);
  EXPECT_EQ(sb.steps[1].plugin_start_ns, 1000);
  EXPECT_EQ(sb.steps[1].plugin_end_ns, 2160);
  const CategoryNs want = {960, 0, 0, 0, 25, 0, 75, 100};
  EXPECT_EQ(sb.steps[1].plugin_ns, want);
  // Two steps: both steady. Means: (400+800)/2 = 600 kernel, ...
  EXPECT_EQ(sb.steady_begin, 0u);
  EXPECT_DOUBLE_EQ(sb.steady_mean_ns[C(StepCategory::kKernel)], 600);
  EXPECT_DOUBLE_EQ(sb.steady_mean_ns[C(StepCategory::kOther)], 70);
  EXPECT_DOUBLE_EQ(sb.steady_mean_step_ns, 1000);
  EXPECT_EQ(sb.plugin_steady_count, 2u);
  EXPECT_DOUBLE_EQ(sb.plugin_steady_mean_ns[C(StepCategory::kKernel)], 680);
  EXPECT_DOUBLE_EQ(sb.plugin_steady_mean_step_ns, 1080);
  EXPECT_EQ(sb.worst_step, 0);  // equal lengths: the first
}

// Three steps [0,100) [100,200) [200,300) launching 5, 5 and 3 kernels: the
// plugin drops the last (5 * 0.8 = 4 > 3). A kernel without a launch ending at
// 30, before the first launched op (at 40), moves the plugin's first step
// start to 30. Steps 1-2 end at 100 / 200: their kernels end inside.
TEST(StepBreakdownTest, PluginDropsAThinLastStep) {
  DepthBuilder b;
  for (int i = 0; i < 3; ++i) b.Annotation("ProfilerStep#" + std::to_string(i + 1), 100 * i, 100);
  b.Kernel("early", 10, 20, 7);
  int64_t corr = 1;
  const int counts[] = {5, 5, 3};
  for (int s = 0; s < 3; ++s) {
    for (int k = 0; k < counts[s]; ++k) {
      b.Runtime("cudaLaunchKernel", 100 * s + k, 1, corr);
      b.Kernel("k", 100 * s + 40 + 5 * k, 5, 7, corr);
      ++corr;
    }
  }
  const RankAnalysis r = AnalyzeRank(b.Finish());
  const StepBreakdown& sb = r.step_breakdown;
  ASSERT_EQ(sb.steps.size(), 3u);
  EXPECT_TRUE(sb.steps[0].plugin_kept);
  EXPECT_EQ(sb.steps[0].plugin_start_ns, 30);
  EXPECT_EQ(sb.steps[0].plugin_end_ns, 100);
  EXPECT_TRUE(sb.steps[1].plugin_kept);
  EXPECT_FALSE(sb.steps[2].plugin_kept);
  // Steady = steps 2 and 3 (three steps: the first is warm-up); the plugin keeps one.
  EXPECT_EQ(sb.steady_begin, 1u);
  EXPECT_EQ(sb.plugin_steady_count, 1u);
}

// No ProfilerStep#N: one window over the cpu ops [10, 90), as the plugin does.
TEST(StepBreakdownTest, WholeTraceWithoutSteps) {
  DepthBuilder b;
  b.Op("aten::mm", 10, 80);
  b.Runtime("cudaLaunchKernel", 20, 10, 1);
  b.Kernel("gemm", 40, 30, 7, 1);
  const RankAnalysis r = AnalyzeRank(b.Finish());
  const StepBreakdown& sb = r.step_breakdown;
  ASSERT_EQ(sb.steps.size(), 1u);
  EXPECT_TRUE(sb.whole_trace);
  EXPECT_EQ(sb.steps[0].number, -1);
  // Kernel [40,70) 30; Runtime [20,30) 10; CPU Exec 80-30-10 = 40; Other 0.
  const CategoryNs want = {30, 0, 0, 0, 10, 0, 40, 0};
  EXPECT_EQ(sb.steps[0].ns, want);
}

TEST(StepBreakdownTest, DataPipeAndGlooCount) {
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 100);
  b.Annotation("enumerate(DataPipe)#MapperIterDataPipe", 0, 30);
  b.Op("gloo:all_reduce", 50, 40);
  const RankAnalysis r = AnalyzeRank(b.Finish());
  const CategoryNs want = {0, 0, 0, 40, 0, 30, 0, 30};
  ASSERT_EQ(r.step_breakdown.steps.size(), 1u);
  EXPECT_EQ(r.step_breakdown.steps[0].ns, want);
}

}  // namespace
}  // namespace fastenough::analysis
