// Findings fed by the deeper analyses, on hand-made traces (ns).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fastenough/analysis/depth_test_builder.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/findings/detect_all.h"

namespace fastenough::findings {
namespace {

using analysis::testing::DepthBuilder;

const Finding* Find(const std::vector<Finding>& fs, const std::string& code) {
  auto it = std::find_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.code == code; });
  return it == fs.end() ? nullptr : &*it;
}

template <typename T>
T Ev(const Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.evidence) {
    if (k == key) return std::get<T>(v);
  }
  ADD_FAILURE() << "no evidence " << key;
  return T{};
}

bool HasEv(const Finding& f, const std::string& key) {
  return std::any_of(f.evidence.begin(), f.evidence.end(), [&](const auto& e) { return e.first == key; });
}

std::vector<Finding> Detect(trace::EventStore& s) {
  const analysis::RankAnalysis r = analysis::AnalyzeRank(s);
  return DetectAll(s, r);
}

// Device 0: 4 SMs x 64 warps. Steps [0,1000) [1000,2000).
//   small_grid  [0,500)     s7  blocks/SM 0.5, 2 warps/SM, occupancy 3%
//   big         [1000,1400) s7  blocks/SM 8, occupancy 60%
//   ncclDevKernel_AllReduce [1500,1900) s9  blocks/SM 0.1: a collective, left out
// Kernel time 1300: small_grid is 500/1300 = 0.385 of it (hot) with fewer
// blocks than SMs -> low-occupancy. Critical path: stream 7 runs small_grid,
// a 500 ns gap and big (1400 > the collective's 400); small_grid's 500 ns are
// on it: critical_path_share 500/1400 = 0.357, 250 ns per step.
void Occupancy(DepthBuilder& b, double blocks, double occupancy) {
  b.Properties(0, 4, 2048, 32);
  b.Annotation("ProfilerStep#1", 0, 1000);
  b.Annotation("ProfilerStep#2", 1000, 1000);
  b.Kernel("small_grid", 0, 500, 7);
  b.Args(blocks, 2, occupancy);
  b.Kernel("big", 1000, 400, 7);
  b.Args(8, 32, 60);
  b.Kernel("ncclDevKernel_AllReduce_Sum_f32", 1500, 400, 9);
  b.Args(0.1, 0.4, 1);
}

TEST(DepthFindingsTest, LowOccupancy) {
  DepthBuilder b;
  Occupancy(b, 0.5, 3);
  const auto fs = Detect(b.Finish());
  const Finding* f = Find(fs, "low-occupancy");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->verdict, Verdict::kInsufficientEvidence);
  EXPECT_EQ(f->title, "Hot kernel leaves SMs idle (38.5% of kernel time)");
  EXPECT_EQ(Ev<std::string>(*f, "kernel"), "small_grid");
  EXPECT_DOUBLE_EQ(Ev<double>(*f, "share_of_kernel_time"), 0.385);
  EXPECT_EQ(Ev<int64_t>(*f, "kernel_ns_per_step"), 250);
  EXPECT_DOUBLE_EQ(Ev<double>(*f, "calls_per_step"), 0.5);
  EXPECT_DOUBLE_EQ(Ev<double>(*f, "est_achieved_occupancy_pct"), 3);
  EXPECT_DOUBLE_EQ(Ev<double>(*f, "blocks_per_sm"), 0.5);
  EXPECT_EQ(Ev<int64_t>(*f, "max_warps_per_sm"), 64);
  EXPECT_EQ(Ev<int64_t>(*f, "num_sms"), 4);
  EXPECT_EQ(Ev<int64_t>(*f, "low_occupancy_kernels"), 1);
  EXPECT_TRUE(HasEv(*f, "missing"));
  EXPECT_EQ(f->saving.per_step_ns, -1);  // no saving claimed
  ASSERT_EQ(f->where.size(), 1u);
  EXPECT_EQ(f->where[0].kernel, "small_grid");
  EXPECT_EQ(Ev<int64_t>(*f, "critical_path_ns_per_step"), 250);
  EXPECT_DOUBLE_EQ(Ev<double>(*f, "critical_path_share"), 0.357);
}

TEST(DepthFindingsTest, NoLowOccupancyForAFullGrid) {
  DepthBuilder b;
  Occupancy(b, 2.0, 30);
  EXPECT_EQ(Find(Detect(b.Finish()), "low-occupancy"), nullptr);
}

// Reserved peak 950 of 1000 bytes (95% >= 90%): memory-near-limit from the trace.
TEST(DepthFindingsTest, MemoryNearLimitFromTheTrace) {
  for (int64_t reserved : {950, 850}) {
    DepthBuilder b;
    b.Properties(0, 4, 2048, 32, /*total_memory=*/1000);
    b.Annotation("ProfilerStep#1", 0, 100);
    b.Op("aten::empty", 10, 10);
    b.Memory(15, 0xA, 600, 700, reserved);
    const auto fs = Detect(b.Finish());
    const Finding* f = Find(fs, "memory-near-limit");
    if (reserved == 850) {
      EXPECT_EQ(f, nullptr);
      continue;
    }
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->source, "trace");
    EXPECT_EQ(f->verdict, Verdict::kBounded);
    EXPECT_EQ(f->title, "Peak memory is 95.0% of capacity on cuda:0");
    EXPECT_EQ(Ev<int64_t>(*f, "peak_bytes"), 950);
    EXPECT_EQ(Ev<int64_t>(*f, "capacity_bytes"), 1000);
    EXPECT_EQ(Ev<int64_t>(*f, "alloc_peak_bytes"), 700);
    EXPECT_EQ(Ev<int64_t>(*f, "cache_at_alloc_peak_bytes"), 250);
    EXPECT_EQ(Ev<std::string>(*f, "peak_op"), "aten::empty");
    EXPECT_FALSE(HasEv(*f, "critical_path_share"));  // a limit covers no time
  }
}

// Step [0,10000): kernels [1100,1200) and [5100,5200), launched at 1000 and
// 5000: the device waits 3900 ns for the host -> gpu-idle-host-bound. With a
// graph replay at 2000 recorded without its kernels (the device ran later),
// that idle is not real: the idle findings are not reported.
TEST(DepthFindingsTest, GraphReplayWithoutKernelsSuppressesFalseIdle) {
  for (bool replay : {false, true}) {
    DepthBuilder b;
    b.Annotation("ProfilerStep#1", 0, 10000);
    b.Runtime("cudaLaunchKernel", 1000, 10, 1);
    b.Kernel("gemm", 1100, 100, 7, 1);
    if (replay) b.Runtime("cudaGraphLaunch", 2000, 10, 99);
    b.Runtime("cudaLaunchKernel", 5000, 10, 2);
    b.Kernel("gemm", 5100, 100, 7, 2);
    const auto fs = Detect(b.Finish());
    EXPECT_EQ(Find(fs, "gpu-idle-host-bound") != nullptr, !replay) << replay;
  }
}

// A CPU-only loop whose steps wait in a DataPipe: dataloader-bound.
TEST(DepthFindingsTest, DataPipeIsDataLoading) {
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 1000);
  b.Annotation("enumerate(DataPipe)#MapperIterDataPipe", 0, 400);
  b.Op("aten::mm", 400, 600);
  const auto fs = Detect(b.Finish());
  const Finding* f = Find(fs, "dataloader-bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Ev<int64_t>(*f, "loop_wait_in_dataloader_ns_per_step"), 400);
}

// Launch-bound small kernels, launched by `tid` while thread 1 runs a CPU op
// over each whole step (or nothing, when tid is 1). Steps [0,1000)
// [1000,2000); per step 10 launch calls of 40 ns (at 50, 130, ...), each of a
// 2 ns kernel 45 ns after the call began: small-kernels fires (device busy
// 20/1000, every kernel short) and its detector's saving is the launch time
// the kernels leave uncovered, 10 x 38 = 380 ns a step (share 0.38).
void SmallKernelsBeside(DepthBuilder& b, int64_t tid) {
  int64_t corr = 1;
  for (int64_t t0 : {0, 1000}) {
    b.Annotation("ProfilerStep#" + std::to_string(t0 / 1000 + 1), t0, 1000);
    if (tid != 1) b.Op("aten::cpu_work", t0, 1000);
    for (int64_t k = 0; k < 10; ++k) {
      const int64_t at = t0 + 50 + k * 80;
      b.Runtime("cudaLaunchKernel", at, 40, corr, tid);
      b.Kernel("tiny", at + 45, 2, 7, corr);
      ++corr;
    }
  }
}

// On another thread than the one the step waits for, the launches are off
// the critical path (thread 1's CPU op spans every step: the path is that
// op, 1000 ns a step, and explains the whole window): the saving is lowered
// to the path's time on the finding's events, 0, and the verdict follows.
TEST(DepthFindingsTest, SmallKernelsOffTheCriticalPathSaveNothing) {
  DepthBuilder b;
  SmallKernelsBeside(b, 2);
  const auto fs = Detect(b.Finish());
  const Finding* f = Find(fs, "small-kernels");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(Ev<double>(*f, "uncapped_share_of_step"), 0.38);
  EXPECT_EQ(Ev<int64_t>(*f, "own_critical_path_ns_per_step"), 0);
  EXPECT_EQ(Ev<int64_t>(*f, "critical_path_unexplained_ns_per_step"), 0);
  EXPECT_EQ(f->saving.per_step_ns, 0);
  EXPECT_DOUBLE_EQ(f->saving.share_of_step, 0.0);
  EXPECT_EQ(f->verdict, Verdict::kBounded);
}

// The same launches on the thread the step waits for: the path runs through
// them (the calls' 40 ns, the 5 ns launch delays and the kernels' 2 ns after
// the last), so the saving stands as measured.
TEST(DepthFindingsTest, SmallKernelsOnTheCriticalPathKeepTheirSaving) {
  DepthBuilder b;
  SmallKernelsBeside(b, 1);
  const auto fs = Detect(b.Finish());
  const Finding* f = Find(fs, "small-kernels");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(HasEv(*f, "uncapped_share_of_step"));
  EXPECT_GT(Ev<int64_t>(*f, "own_critical_path_ns_per_step"), 380);
  EXPECT_EQ(f->saving.per_step_ns, 380);
  EXPECT_EQ(f->verdict, Verdict::kAvoidable);
}

}  // namespace
}  // namespace fastenough::findings
