// The pipeline on real files: the golden trace loaded twice (two "ranks").
#include "fastenough/report/analyze.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "fastenough/report/report_json.h"

namespace fastenough::report {
namespace {

const std::string kGolden = std::string(FASTENOUGH_TEST_DATA) + "/golden/small_step_trace.json";

TEST(AnalyzePipelineTest, ParallelEqualsSequentialAndProgressAggregates) {
  AnalyzeOptions one;
  one.threads = 1;
  AnalyzeOptions two;
  two.threads = 2;
  std::mutex mu;
  uint64_t last_done = 0, last_total = 0;
  int calls = 0;
  two.progress = [&](uint64_t done, uint64_t total) {
    std::lock_guard<std::mutex> lock(mu);
    last_done = done;
    last_total = total;
    ++calls;
  };
  StatusOr<std::string> a = AnalyzeTracesToJson({kGolden, kGolden}, one);
  StatusOr<std::string> b = AnalyzeTracesToJson({kGolden, kGolden}, two);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(a.value(), b.value());
  EXPECT_GT(calls, 0);
  EXPECT_LE(last_done, last_total);
}

TEST(AnalyzePipelineTest, TwoInputsMergeAcrossRanks) {
  StatusOr<Report> r = AnalyzeTraces({kGolden, kGolden});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->inputs.size(), 2u);
  ASSERT_EQ(r->ranks.size(), 2u);
  // Step durations pooled: 100000 x4, 150000 x2 -> median 100000, p90 150000.
  EXPECT_EQ(r->steps.duration.count, 6);
  EXPECT_DOUBLE_EQ(r->steps.duration.median, 100000);
  EXPECT_DOUBLE_EQ(r->steps.duration.p90, 150000);
  // Kernels merged by name: gemm 2 x 90000; share of the summed busy (2 x 131000).
  ASSERT_FALSE(r->top_kernels.empty());
  EXPECT_EQ(r->top_kernels[0].count, 6);
  EXPECT_EQ(r->top_kernels[0].total_ns, 180000);
  EXPECT_DOUBLE_EQ(r->top_kernels[0].share_of_busy, 90000.0 / 131000.0);
  EXPECT_EQ(r->top_ops[0].total_ns, 100000);
}

TEST(AnalyzePipelineTest, OneBadFileFailsTheCall) {
  StatusOr<Report> r = AnalyzeTraces({kGolden, "/nonexistent/x.json"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/x.json", 0), 0u) << r.status().message();
  EXPECT_FALSE(AnalyzeTraces({}).ok());
}

}  // namespace
}  // namespace fastenough::report
