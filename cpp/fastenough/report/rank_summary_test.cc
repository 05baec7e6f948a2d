// Rank summaries: what SummarizeRank keeps of a rank (the collectives, the
// input facts) and drops (the detectors' working sets), straggler-rank on
// collectives alone, and fastenough.rank-summary/1 read back into the same
// report that the traces give.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/test_trace_builder.h"
#include "fastenough/pipeline/analyze.h"
#include "fastenough/pipeline/assemble.h"
#include "fastenough/report/rank_summary.h"
#include "fastenough/report/rank_summary_json.h"
#include "fastenough/report/report_json.h"

namespace fastenough::report {
namespace {

using findings::testing::TraceBuilder;

constexpr char kAllReduce[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

// Rank 3: two 1000 us steps, each a GEMM [50, 150) on stream 7 and an
// all-reduce [300, 500) on stream 20 (µs into the step).
trace::EventStore& TwoSteps(TraceBuilder& b) {
  b.store.rank = 3;
  b.store.path = "rank3.json";
  for (int s = 0; s < 2; ++s) {
    const double t0 = 1000.0 * s;
    b.Step(s, t0, 1000);
    b.Op("aten::mm", t0 + 10, 20);
    b.Kernel(t0 + 11, 5, "ampere_sgemm_128x64_nn", t0 + 50, 100);
    b.Op("c10d::allreduce_", t0 + 200, 10);
    b.Kernel(t0 + 201, 5, kAllReduce, t0 + 300, 200, 20);
  }
  return b.Finish();
}

TEST(RankSummary, KeepsCollectivesAndInputDropsWorkingSets) {
  TraceBuilder b;
  const trace::EventStore& store = TwoSteps(b);
  analysis::RankAnalysis a = analysis::AnalyzeRank(store);
  ASSERT_EQ(a.devices.size(), 1u);
  ASSERT_EQ(a.devices[0].streams.size(), 2u);
  // Stream 7: [50, 150) then [1050, 1150): one gap.
  ASSERT_EQ(a.devices[0].streams[0].gaps.size(), 1u);
  ASSERT_FALSE(a.busy_all.empty());

  const RankSummary s = SummarizeRank(store, std::move(a), {}, /*with_shapes=*/false);
  EXPECT_EQ(s.collectives.rank, 3);
  ASSERT_EQ(s.collectives.by_name.size(), 1u);  // the GEMM is no collective
  const auto& calls = s.collectives.by_name.at(kAllReduce);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], (analysis::CollectiveCall{300000, 200000}));
  EXPECT_EQ(calls[1], (analysis::CollectiveCall{1300000, 200000}));
  EXPECT_EQ(s.input.path, "rank3.json");
  EXPECT_EQ(s.input.ranks, std::vector<int>{3});
  EXPECT_EQ(s.analysis.rank, 3);
  // The report's figures stay; the detectors' working sets go.
  EXPECT_EQ(s.analysis.devices[0].streams[0].gap_count, 1);
  // Freed, not only emptied: a vector emptied by `= {}` keeps its memory.
  EXPECT_EQ(s.analysis.devices[0].streams[0].gaps.capacity(), 0u);
  EXPECT_EQ(s.analysis.critical_path.segments.capacity(), 0u);
  EXPECT_TRUE(s.analysis.busy_all.empty());
  EXPECT_EQ(s.analysis.devices[0].busy_ns, 2 * (100000 + 200000));
  EXPECT_EQ(s.analysis.steps.steps.size(), 2u);
  EXPECT_TRUE(s.shapes.empty());
}

analysis::RankCollectives Calls(int rank, double late_ms, bool broadcast) {
  analysis::RankCollectives c;
  c.rank = rank;
  for (int k = 0; k < 4; ++k) {
    const int64_t start = k * 10000000LL + static_cast<int64_t>(late_ms * 1e6);
    c.by_name["ncclAllReduce"].push_back({start, 1000000});
  }
  if (broadcast) c.by_name["ncclBroadcast"].push_back({50000000, 1000000});
  return c;
}

TEST(RankSummary, StragglerFromCollectivesAlone) {
  // Ranks 10, 11, 12 reach 4 all-reduces (1 ms each) at +0, +0.1 and +2.1 ms:
  // rank 12 is last every time, 2 ms after the second last. The broadcast is
  // on two ranks only and is not matched.
  const auto r10 = Calls(10, 0, true), r11 = Calls(11, 0.1, true), r12 = Calls(12, 2.1, false);
  const auto found = findings::DetectAcrossRanks({&r10, &r11, &r12});
  ASSERT_EQ(found.size(), 1u);
  const findings::Finding& f = found[0];
  EXPECT_EQ(f.code, "straggler-rank");
  EXPECT_EQ(f.verdict, findings::Verdict::kAvoidable);  // 2 ms > 1 ms: not clock skew
  auto ev = [&](std::string_view key) {
    for (const auto& [k, v] : f.evidence) {
      if (k == key) return std::get<int64_t>(v);
    }
    ADD_FAILURE() << "no evidence " << key;
    return int64_t{-1};
  };
  EXPECT_EQ(ev("rank"), 12);
  EXPECT_EQ(ev("ranks"), 3);
  EXPECT_EQ(ev("matched_collectives"), 4);
  EXPECT_EQ(ev("last_arrivals"), 4);
  EXPECT_EQ(ev("mean_late_ns"), 2000000);
  EXPECT_EQ(f.saving.total_ns, 4 * 2000000);
  ASSERT_EQ(f.where.size(), 1u);
  EXPECT_EQ(f.where[0].rank, 12);
}

TEST(RankSummaryJson, ReadsBackWhatItWrote) {
  TraceBuilder b;
  const trace::EventStore& store = TwoSteps(b);
  analysis::RankAnalysis a = analysis::AnalyzeRank(store);
  std::vector<findings::Finding> found = findings::DetectAll(store, a);
  const RankSummary s = SummarizeRank(store, std::move(a), std::move(found), true);
  const std::string text = RankSummaryToJson(s);
  StatusOr<RankSummary> back = ParseRankSummary(text, "rank3.summary.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(RankSummaryToJson(back.value()), text);
  EXPECT_EQ(back->collectives.by_name, s.collectives.by_name);
  // The steps' work items (load-imbalance on host-only jobs) come back too.
  const auto& steps = back->analysis.step_breakdown.steps;
  ASSERT_EQ(steps.size(), s.analysis.step_breakdown.steps.size());
  ASSERT_FALSE(steps.empty());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].work_items, s.analysis.step_breakdown.steps[i].work_items);
  }
  EXPECT_GT(steps.back().work_items, 0);
  // A count per step or none: a list of another length is named.
  std::string broken = text;
  const size_t at = broken.find("\"step_work_items\":[");
  ASSERT_NE(at, std::string::npos);
  broken.insert(at + 19, "7,");
  StatusOr<RankSummary> bad = ParseRankSummary(broken, "rank3.summary.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("step_work_items"), std::string::npos);
}

std::string Data(const std::string& rel) { return std::string(FASTENOUGH_TEST_DATA) + "/" + rel; }

// The report of summaries read back from their JSON is the text analyze gives.
void ExpectMergeEqualsAnalyze(const std::vector<std::string>& paths) {
  pipeline::AnalyzeOptions options;
  options.threads = 1;
  StatusOr<pipeline::AnalyzedJob> job = pipeline::AnalyzeTracesWithSummaries(paths, options);
  ASSERT_TRUE(job.ok()) << job.status().message();
  StatusOr<std::string> plain = pipeline::AnalyzeTracesToJson(paths, options);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(job->report_json, plain.value());
  ASSERT_EQ(job->summaries.size(), paths.size());
  std::vector<RankSummary> back;
  for (const auto& s : job->summaries) {
    StatusOr<RankSummary> parsed = ParseRankSummary(s.json, "summary");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    back.push_back(std::move(parsed).value());
  }
  EXPECT_EQ(ReportToJson(pipeline::AssembleReport(std::move(back), options.top_n)),
            plain.value());
}

TEST(RankSummaryJson, MergedReportIsTheAnalyzedOne) {
  // Two ranks with a straggler; then memory, graphs, the critical path and
  // the plugin's steps (depth_trace) beside a second trace.
  ExpectMergeEqualsAnalyze({Data("detectors/straggler_rank0.json"),
                            Data("detectors/straggler_rank1.json")});
  // depth_trace names no rank (rank 0); the second trace is rank 1 (one input per rank).
  std::ifstream in(Data("golden/small_step_trace.json"));
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  const std::string from = "\"rank\": 0,\n  \"world_size\": 1";
  ASSERT_NE(t.find(from), std::string::npos);
  t.replace(t.find(from), from.size(), "\"rank\": 1,\n  \"world_size\": 2");
  const std::string rank1 =
      (std::filesystem::temp_directory_path() / "fastenough_rank_summary_test_rank1.json").string();
  std::ofstream(rank1) << t;
  ExpectMergeEqualsAnalyze({Data("golden/depth_trace.json"), rank1});
}

TEST(RankSummaryJson, NamesTheFieldItCannotRead) {
  TraceBuilder b;
  const trace::EventStore& store = TwoSteps(b);
  const std::string text =
      RankSummaryToJson(SummarizeRank(store, analysis::AnalyzeRank(store), {}, false));
  std::string broken = text;
  broken.replace(broken.find("\"busy_ns\":"), 10, "\"busy_nz\":");
  StatusOr<RankSummary> r = ParseRankSummary(broken, "r3.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "r3.json: $.devices[0].busy_ns: missing");

  broken = text;
  broken.replace(broken.find("\"gap_count\":1"), 13, "\"gap_count\":\"1\"");
  r = ParseRankSummary(broken, "r3.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "r3.json: $.devices[0].streams[0].gap_count: expected an integer");

  r = ParseRankSummary("{\"schema\": \"fastenough.report/1\"}", "report.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("report.json: not a fastenough.rank-summary/1 document"),
            std::string::npos);
  r = ParseRankSummary("[1, 2", "cut.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("cut.json: not a JSON document", 0), 0u);
}

}  // namespace
}  // namespace fastenough::report
