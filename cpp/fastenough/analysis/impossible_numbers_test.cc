// Issue 34 item 13, the analyses' side: traces whose numbers are possible
// one by one but impossible together (kernels repeated over each other on one
// stream, kernels before their launch, allocations that sum past int64) give
// figures a device can have: shares of busy time within [0, 1], no negative
// launch delay, no wrapped byte sum. Answers computed by hand.
#include <gtest/gtest.h>

#include <string>

#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::analysis {
namespace {

trace::EventStore Parse(const std::string& events) {
  auto s = trace::ParseTrace("{\"traceEvents\": [" + events + "]}");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

std::string Kernel(const std::string& name, int ts_us, int dur_us, int corr) {
  return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "ts": )" + std::to_string(ts_us) +
         R"(, "dur": )" + std::to_string(dur_us) + R"(, "pid": 0, "tid": 7, "args": {"device": 0, "stream": 7, "correlation": )" +
         std::to_string(corr) + "}}";
}

std::string Launch(int ts_us, int corr) {
  return R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": )" + std::to_string(ts_us) +
         R"(, "dur": 2, "pid": 1, "tid": 1, "args": {"correlation": )" + std::to_string(corr) + "}}";
}

TEST(ImpossibleNumbers, KernelsOverEachOtherOnOneStreamShareAtMostTheBusyTime) {
  // "a" twice over [10, 20) µs and once over [15, 30): busy [10, 30) = 20 µs;
  // a ran 20 µs of it (its three instances sum to 35 µs). "b" [40, 45): busy 25 µs.
  trace::EventStore s = Parse(Kernel("a", 10, 10, 1) + "," + Kernel("a", 10, 10, 2) + "," +
                              Kernel("a", 15, 15, 3) + "," + Kernel("b", 40, 5, 4));
  RankAnalysis r = AnalyzeRank(s);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].busy_ns, 25000);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "a");
  EXPECT_EQ(r.kernels[0].total_ns, 35000);
  EXPECT_EQ(r.kernels[0].busy_ns, 20000);
  EXPECT_DOUBLE_EQ(r.kernels[0].share_of_busy, 20000.0 / 25000.0);
  EXPECT_DOUBLE_EQ(r.kernels[1].share_of_busy, 5000.0 / 25000.0);
}

TEST(ImpossibleNumbers, KernelsBeforeTheirLaunchAreLeftOutOfTheLaunchDelays) {
  // Kernel 1 launched at 100 µs, starts at 130: delay 30 µs. Kernel 2 carries
  // a timestamp before its launch (a negative one): no delay from it.
  trace::EventStore s = Parse(Launch(100, 1) + "," + Kernel("k", 130, 5, 1) + "," + Launch(200, 2) +
                              "," + Kernel("k", -2700000, 5, 2));
  RankAnalysis r = AnalyzeRank(s);
  EXPECT_EQ(r.launch.kernel_count, 2);
  EXPECT_EQ(r.launch.launched_count, 2);
  EXPECT_EQ(r.launch.launch_delay.count, 1);
  EXPECT_DOUBLE_EQ(r.launch.launch_delay.median, 30000);
  EXPECT_EQ(s.counters().Get(trace::Counter::kernel_before_launch), 1u);
}

TEST(ImpossibleNumbers, AllocationSumsSaturateInsteadOfWrapping) {
  // Forty blocks of 2^48 bytes (the largest a trace may give) inside one
  // step: 40 * 2^48 = 2^53.32, no wrap; and frees of blocks allocated before
  // the trace do not take the level below zero.
  std::string ev = R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 1000, "pid": 1, "tid": 1})";
  ev += R"(,{"ph": "i", "s": "t", "name": "[memory]", "ts": 1, "pid": 1, "tid": 1, "args": {"Device Type": 1, "Device Id": 0, "Addr": 999, "Bytes": -4096}})";
  for (int i = 0; i < 40; ++i) {
    ev += R"(,{"ph": "i", "s": "t", "name": "[memory]", "ts": )" + std::to_string(2 + i) +
          R"(, "pid": 1, "tid": 1, "args": {"Device Type": 1, "Device Id": 0, "Addr": )" + std::to_string(i) +
          R"(, "Bytes": 281474976710656}})";
  }
  trace::EventStore s = Parse(ev);
  RankAnalysis r = AnalyzeRank(s);
  ASSERT_EQ(r.memory.size(), 1u);
  const auto& m = r.memory[0];
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].alloc_count, 40);
  EXPECT_EQ(m.steps[0].alloc_bytes, int64_t{40} << 48);
  EXPECT_EQ(m.peak_allocated_bytes, int64_t{40} << 48);
  EXPECT_GE(m.end_allocated_bytes, 0);
}

}  // namespace
}  // namespace fastenough::analysis
