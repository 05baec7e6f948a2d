// A critical path that switches between host and device, hand-computed (ns).
//
// Thread 1, window ProfilerStep#1 [0,1000):
//   aten::mm   [100,200) > cudaLaunchKernel [120,140) corr 1 -> gemm [150,600) s7
//   aten::item [300,700) > cudaMemcpyAsync [310,320) corr 2 -> Memcpy DtoH [600,610) s7
//                        > cudaStreamSynchronize [320,615) (blocking: weight 0)
//   aten::add  [720,800) > cudaLaunchKernel [730,740) corr 3 -> add [750,780) s7
// Edges: host mm.s->launch.s 20, launch 20, launch.e->mm.e 60; item.s->copy.s 10,
//   copy call 0 (blocking), copy.e->sync.s 0, sync 0 (blocking), sync.e->item.e 85;
//   add.s->launch3.s 10, launch3 10, launch3.e->add.e 60; dependencies 0.
//   Device: launch.s(120)->gemm.s(150) launch delay 30 (stream empty), gemm 450,
//   gemm.e->memcpy.s gap 0 (the stream was busy when the copy was launched), memcpy 10,
//   launch3.s(730)->add.s(750) launch delay 20 (stream idle since 610), add 30.
//   Sync: memcpy.e(610) -> sync.e(615) (inferred without cuda_sync: the op that
//   finished last before the call returned).
// Longest path: mm.s -20-> launch.s -30-> gemm.s -450-> gemm.e -0-> memcpy.s -10->
//   memcpy.e -0-> sync.e -85-> item.e -0-> add.s -10-> launch3.s -10-> launch3.e
//   -60-> add.e = 675 (ending on the host beats the add kernel, 20+30 < 10+60).
// Host 20+85+10+10+60 = 185, device 450+10 = 460, launch delay 30.
// In sync: the path inside cudaStreamSynchronize [320,615): [320,610) = 290.
#include "fastenough/analysis/critical_path.h"

#include <gtest/gtest.h>

#include "fastenough/analysis/depth_test_builder.h"
#include "fastenough/analysis/steady_window.h"
#include "fastenough/analysis/steps.h"

namespace fastenough::analysis {
namespace {

using testing::DepthBuilder;
using K = trace::EventKind;

void HostAndDevice(DepthBuilder& b, bool with_cuda_sync) {
  b.Annotation("ProfilerStep#1", 0, 1000);
  b.Op("aten::mm", 100, 100);
  b.Runtime("cudaLaunchKernel", 120, 20, 1);
  b.Kernel("gemm", 150, 450, 7, 1);
  b.Op("aten::item", 300, 400);
  b.Runtime("cudaMemcpyAsync", 310, 10, 2);
  b.Device(K::kMemcpy, "Memcpy DtoH (Device -> Pageable)", 600, 10, 7, 2);
  b.Runtime("cudaStreamSynchronize", 320, 295, 4);
  if (with_cuda_sync) b.Device(K::kDeviceSync, "Stream Sync", 320, 295, 7, 4);
  b.Op("aten::add", 720, 80);
  b.Runtime("cudaLaunchKernel", 730, 10, 3);
  b.Kernel("add", 750, 30, 7, 3);
}

CriticalPath Path(trace::EventStore& s) {
  const StepStats steps = AnalyzeSteps(timeline::FindStepWindows(s), {});
  return AnalyzeCriticalPath(s, SteadyWindows(s, steps));
}

void ExpectHandComputed(const CriticalPath& cp) {
  ASSERT_EQ(cp.status, "ok");
  EXPECT_EQ(cp.window_ns, 1000);
  EXPECT_EQ(cp.length_ns, 675);
  EXPECT_EQ(cp.host_ns, 185);
  EXPECT_EQ(cp.device_ns, 460);
  EXPECT_EQ(cp.launch_delay_ns, 30);
  EXPECT_EQ(cp.kernel_gap_ns, 0);
  EXPECT_EQ(cp.sync_ns, 290);
  // host -> launch delay -> device -> host: the switches, in time order.
  ASSERT_EQ(cp.segments.size(), 8u);
  EXPECT_EQ(cp.segments[0].kind, PathKind::kHost);         // [100,120) aten::mm
  EXPECT_EQ(cp.segments[1].kind, PathKind::kLaunchDelay);  // [120,150)
  EXPECT_EQ(cp.segments[2].kind, PathKind::kDevice);       // [150,600) gemm
  EXPECT_EQ(cp.segments[2].start_ns, 150);
  EXPECT_EQ(cp.segments[2].end_ns, 600);
  EXPECT_EQ(cp.segments[3].kind, PathKind::kDevice);       // [600,610) memcpy
  EXPECT_EQ(cp.segments[4].kind, PathKind::kHost);         // [615,700) aten::item
  EXPECT_EQ(cp.segments[4].start_ns, 615);
  EXPECT_EQ(cp.segments[7].end_ns, 800);
  ASSERT_EQ(cp.streams.size(), 1u);
  EXPECT_EQ(cp.streams[0].stream, 7);
  EXPECT_EQ(cp.streams[0].compute_ns, 450);
  EXPECT_EQ(cp.streams[0].memcpy_ns, 10);
  EXPECT_EQ(cp.streams[0].launch_delay_ns, 30);
  ASSERT_GE(cp.top.size(), 3u);
  EXPECT_EQ(cp.top[0].kind, "kernel");
  EXPECT_EQ(cp.top[0].name, "gemm");
  EXPECT_EQ(cp.top[0].ns, 450);
  EXPECT_EQ(cp.top[1].name, "aten::item");
  EXPECT_EQ(cp.top[1].ns, 85);
  EXPECT_EQ(cp.top[2].name, "aten::add");
  EXPECT_EQ(cp.top[2].ns, 70);
  EXPECT_EQ(cp.top[2].count, 2);
  ASSERT_EQ(cp.steps.size(), 1u);
  EXPECT_EQ(cp.steps[0].path_ns, 675);
  EXPECT_EQ(cp.steps[0].host_ns, 185);
  EXPECT_EQ(cp.steps[0].device_ns, 460);
  EXPECT_EQ(cp.steps[0].sync_ns, 290);
  // The part of the path a finding's time covers: [500,650) holds gemm's
  // [500,600), the copy's [600,610) and aten::item's [615,650): 145 ns.
  EXPECT_EQ(CriticalPathOverlap(cp, timeline::IntervalSet::FromUnsorted({{500, 650}})), 145);
}

TEST(CriticalPathTest, SwitchesBetweenHostAndDeviceInferredSync) {
  DepthBuilder b;
  HostAndDevice(b, false);
  const CriticalPath cp = Path(b.Finish());
  EXPECT_FALSE(cp.cuda_sync_events);
  ExpectHandComputed(cp);
}

// The same with the cuda_sync "Stream Sync" row Kineto writes: the edge comes
// from the last op on stream 7 (the copy), as in HTA.
TEST(CriticalPathTest, SwitchesBetweenHostAndDeviceStreamSync) {
  DepthBuilder b;
  HostAndDevice(b, true);
  const CriticalPath cp = Path(b.Finish());
  EXPECT_TRUE(cp.cuda_sync_events);
  ExpectHandComputed(cp);
}

// A blocking copy call (hipMemcpyWithStream) waits for its own 400 ns copy:
// the path runs through the copy, not through the host call.
//   hipMemcpyWithStream [10,420) corr 1 -> Memcpy HtoD [15,415) s0
//   aten::relu [430,440) afterwards.
// Path: call.s -launch 5-> copy.s -400-> copy.e -0-> call.e -10 (host: call.e ->
// relu.s is a 0 dependency; relu 10) = 415; host 10, device 400, launch 5.
TEST(CriticalPathTest, BlockingCopyNamesTheCopy) {
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 500);
  b.Runtime("hipMemcpyWithStream", 10, 410, 1);
  b.Device(K::kMemcpy, "Memcpy HtoD", 15, 400, 0, 1);
  b.Op("aten::relu", 430, 10);
  const CriticalPath cp = Path(b.Finish());
  ASSERT_EQ(cp.status, "ok");
  EXPECT_EQ(cp.length_ns, 415);
  EXPECT_EQ(cp.device_ns, 400);
  EXPECT_EQ(cp.launch_delay_ns, 5);
  EXPECT_EQ(cp.host_ns, 10);
  EXPECT_EQ(cp.top[0].kind, "memcpy");
  EXPECT_EQ(cp.top[0].name, "Memcpy HtoD");
  EXPECT_EQ(cp.sync_ns, 405);  // the path inside the blocking call [10,420): [10,415)
}

TEST(CriticalPathTest, EmptyWindow) {
  DepthBuilder b;
  b.Annotation("ProfilerStep#1", 0, 100);
  const CriticalPath cp = Path(b.Finish());
  EXPECT_EQ(cp.status, "no-events");
  EXPECT_EQ(cp.length_ns, 0);
}

}  // namespace
}  // namespace fastenough::analysis
