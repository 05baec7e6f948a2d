// The pipeline on real files: the golden trace as two ranks (a copy that says
// rank 1), and the refusals of one rank given twice (issue 34 item 14).
#include "fastenough/pipeline/analyze.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <mutex>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/analysis/collectives.h"
#include "fastenough/analysis/shapes.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/report/rank_summary.h"
#include "fastenough/report/rank_summary_json.h"
#include "fastenough/report/report_json.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::pipeline {

using report::RankSummaryToJson;
using report::Report;
using report::SummarizeRank;

namespace {

const std::string kGolden = std::string(FASTENOUGH_TEST_DATA) + "/golden/small_step_trace.json";

// The golden trace with its distributedInfo saying `rank_json` (written once).
std::string GoldenAs(const std::string& rank_json, const std::string& name) {
  std::ifstream in(kGolden);
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  const std::string from = "\"rank\": 0,\n  \"world_size\": 1";
  const size_t at = t.find(from);
  EXPECT_NE(at, std::string::npos);
  t.replace(at, from.size(), "\"rank\": " + rank_json + ",\n  \"world_size\": 2");
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  // Every test process of the binary runs this at start (ctest -j runs them
  // side by side): written under a name of its own, then renamed over the
  // file, so that a test reading it never sees it half written.
  const std::string tmp = path + "." + std::to_string(::getpid());
  std::ofstream(tmp) << t;
  std::filesystem::rename(tmp, path);
  return path;
}

const std::string kRank1 = GoldenAs("1", "fastenough_analyze_test_rank1.json");

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
  StatusOr<std::string> a = AnalyzeTracesToJson({kGolden, kRank1}, one);
  StatusOr<std::string> b = AnalyzeTracesToJson({kGolden, kRank1}, two);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(a.value(), b.value());
  EXPECT_GT(calls, 0);
  EXPECT_LE(last_done, last_total);
}

// With cores to spare the pipeline analyses one rank on several threads (the
// analyses that read only the store, the detectors' call tree, the
// collectives and the shape census beside the device analyses): the rank's
// summary is the one the single-threaded order gives, byte for byte.
TEST(AnalyzePipelineTest, RankWorkOnSeveralThreadsGivesTheSameSummary) {
  const std::string data = FASTENOUGH_TEST_DATA;
  size_t found = 0;
  for (const std::string& path : {kGolden, data + "/golden/depth_trace.json",
                                  data + "/detectors/waste_trace.json",
                                  data + "/detectors/straggler_rank1.json"}) {
    StatusOr<trace::EventStore> loaded = trace::LoadTrace(path);
    ASSERT_TRUE(loaded.ok()) << path << ": " << loaded.status().message();
    const trace::EventStore& store = loaded.value();
    analysis::RankAnalysis a = analysis::AnalyzeRank(store);
    std::vector<findings::Finding> f = findings::DetectAll(store, a);
    found += f.size();
    const std::string one = RankSummaryToJson(SummarizeRank(store, std::move(a), std::move(f), true));
    analysis::RankOptions parallel;
    parallel.parallel = true;
    analysis::RankAnalysis b = analysis::AnalyzeRank(store, parallel);
    std::vector<findings::Finding> g =
        findings::DetectAll(store, b, nullptr, analysis::BuildCallTree(store));
    const std::string several = RankSummaryToJson(
        SummarizeRank(store, std::move(b), std::move(g), analysis::CollectCollectives(store),
                      analysis::ShapeCensus(store), 0));
    EXPECT_EQ(one, several) << path;
  }
  EXPECT_GT(found, 0u);  // the detectors' part is compared too
}

TEST(AnalyzePipelineTest, TwoInputsMergeAcrossRanks) {
  StatusOr<Report> r = AnalyzeTraces({kGolden, kRank1});
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

TEST(AnalyzePipelineTest, OneRankGivenTwiceIsRefusedNamingBoth) {
  // The same file twice: refused before loading.
  StatusOr<Report> twice = AnalyzeTraces({kGolden, kGolden});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(twice.status().message(), kGolden + " is given twice: a job's report takes one trace per rank; give it once");
  // A copy that claims rank 0 too.
  const std::string copy = GoldenAs("0", "fastenough_analyze_test_rank0_copy.json");
  StatusOr<Report> same = AnalyzeTraces({kGolden, copy});
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(same.status().message().rfind(kGolden + " and " + copy + " both hold rank 0: ", 0), 0u)
      << same.status().message();
  // "rank": "0; rm -rf /" is no rank: unknown, shown as 0, and it collides.
  const std::string junk = GoldenAs("\"0; rm -rf /\"", "fastenough_analyze_test_rank_junk.json");
  StatusOr<Report> unknown = AnalyzeTraces({kGolden, junk});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("without a usable distributedInfo.rank"), std::string::npos)
      << unknown.status().message();
  // Alone it is analysed, its rank unknown and said by a counter.
  StatusOr<Report> alone = AnalyzeTraces({junk});
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  bool said = false;
  for (const auto& c : alone->counters) said = said || c.name == "rank_unusable";
  EXPECT_TRUE(said);
}

TEST(AnalyzePipelineTest, OneBadFileFailsTheCall) {
  StatusOr<Report> r = AnalyzeTraces({kGolden, "/nonexistent/x.json"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/x.json", 0), 0u) << r.status().message();
  EXPECT_FALSE(AnalyzeTraces({}).ok());
}

}  // namespace
}  // namespace fastenough::pipeline
