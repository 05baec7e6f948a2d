// The serializer on a hand-built store: the JSON parses and carries the
// hand-computed figures of analysis/rank_analysis_test.cc.
#include "fastenough/report/report_json.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>

#include "fastenough/analysis/test_store.h"
#include "fastenough/pipeline/analyze.h"

namespace fastenough::report {
namespace {

using simdjson::dom::element;

TEST(ReportJsonTest, BuildAndSerialise) {
  trace::EventStore store = analysis::testing::ExampleStore();
  store.path = "rank0.json";
  store.counters().Add(trace::Counter::event_repaired, 2);
  Report r = pipeline::BuildReport({&store});
  // What `fastenough run` adds.
  PhaseRow p;
  p.name = "steady";
  p.start_ns = 10;
  p.end_ns = 20;
  p.alloc_peak = 1024;
  r.phases.push_back(p);
  MetaAgent agent;  // an agent's record, with the one key its file had
  agent.pid = 8;
  agent.recorded.keys = {"pid"};
  r.meta.agents = std::vector<MetaAgent>{agent};
  findings::Finding f;
  f.code = "test-only";
  f.title = "many \"small\" kernels";
  f.saving.total_ns = 5;
  f.evidence.emplace_back("calls_per_step", int64_t{64});
  r.findings.push_back(f);
  r.steps.steady_steps_per_s = 4.0;

  const std::string json = ReportToJson(r);
  simdjson::dom::parser parser;
  element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(doc["schema"]), "fastenough.report/1");
  EXPECT_EQ(std::string_view(doc["tool_version"]), FASTENOUGH_VERSION);
  EXPECT_EQ(std::string_view(doc["inputs"].at(0)["path"]), "rank0.json");
  EXPECT_EQ(int64_t(doc["meta"]["agents"].at(0)["pid"]), 8);
  EXPECT_NE(json.find(R"("agents": [{"pid":8}])"), std::string::npos) << json;
  EXPECT_TRUE(doc["meta"]["base_time_ns"].is_null());
  EXPECT_EQ(std::string_view(doc["counters"].at(0)["name"]), "event_repaired");
  EXPECT_EQ(uint64_t(doc["counters"].at(0)["count"]), 2u);
  EXPECT_EQ(std::string_view(doc["phases"].at(0)["name"]), "steady");
  EXPECT_TRUE(doc["phases"].at(0)["util_mean"].is_null());
  EXPECT_TRUE(doc["phases"].at(0)["host_ns"].is_null());
  EXPECT_EQ(int64_t(doc["phases"].at(0)["alloc_peak"]), 1024);

  element steps = doc["steps"];
  EXPECT_EQ(int64_t(steps["count"]), 3);
  EXPECT_EQ(int64_t(steps["median_ns"]), 250);
  EXPECT_EQ(int64_t(steps["p10_ns"]), 170);
  EXPECT_EQ(int64_t(steps["steady_steps_per_s"]), 4);
  EXPECT_TRUE(steps["items_per_s"].is_null());
  EXPECT_EQ(int64_t(steps["per_rank"].at(0)["windows"].at(1)["device_busy_ns"]), 150);

  element d0 = doc["devices"].at(0);
  EXPECT_EQ(int64_t(d0["busy_ns"]), 270);
  EXPECT_EQ(int64_t(d0["idle_ns"]), 240);
  EXPECT_EQ(int64_t(d0["comm_ns"]), 50);
  EXPECT_EQ(int64_t(d0["idle_breakdown"]["host_wait_ns"]), 235);
  EXPECT_EQ(int64_t(d0["stream_gap_ns"]), 380);
  EXPECT_EQ(int64_t(d0["streams"].at(1)["kernel_wait_ns"]), 135);
  EXPECT_EQ(int64_t(doc["devices"].at(1)["device"]), 1);

  EXPECT_EQ(std::string_view(doc["top_kernels"].at(0)["name"]), "gemm_a");
  EXPECT_DOUBLE_EQ(double(doc["top_kernels"].at(0)["share_of_busy"]), 0.6);
  EXPECT_EQ(std::string_view(doc["top_ops"].at(0)["name"]), "aten::addmm");
  EXPECT_EQ(std::string_view(doc["top_ops_by_self"].at(1)["name"]), "aten::linear");
  EXPECT_DOUBLE_EQ(double(doc["launch"]["per_rank"].at(0)["launch_delay_median_ns"]), 42.5);
  EXPECT_EQ(int64_t(doc["launch"]["short_kernel_count"]), 1);
  // Appended after BuildReport (as `fastenough run` appends agent findings): last.
  simdjson::dom::array fs = doc["findings"].get_array();
  element last;
  for (element e : fs) last = e;
  EXPECT_EQ(std::string_view(last["code"]), "test-only");
  EXPECT_EQ(std::string_view(last["title"]), "many \"small\" kernels");
  EXPECT_EQ(int64_t(last["evidence"]["calls_per_step"]), 64);
  EXPECT_TRUE(last["saving"]["per_step_ns"].is_null());
  EXPECT_TRUE(doc["decision"].is_null());
  EXPECT_EQ(doc["shapes"].get_array().size(), 0u);
  EXPECT_EQ(doc["run"].error(), simdjson::NO_SUCH_FIELD);  // analyze: no run block
}

TEST(ReportJsonTest, RunBlock) {
  Report r;
  RunInfo run;
  run.command = {"python", "train.py"};
  run.exit_status = -1;
  run.signal = 9;
  run.missing = {"trace.json"};
  r.run = run;
  simdjson::dom::parser parser;
  element doc;
  ASSERT_EQ(parser.parse(ReportToJson(r)).get(doc), simdjson::SUCCESS);
  EXPECT_TRUE(doc["run"]["exit_status"].is_null());
  EXPECT_EQ(int64_t(doc["run"]["signal"]), 9);
  EXPECT_EQ(std::string_view(doc["run"]["command"].at(1)), "train.py");
  EXPECT_EQ(std::string_view(doc["run"]["missing"].at(0)), "trace.json");
  EXPECT_EQ(int64_t(doc["steps"]["count"]), 0);
  EXPECT_TRUE(doc["steps"]["median_ns"].is_null());
}

TEST(ReportJsonTest, FindingsRankedBySaving) {
  std::vector<findings::Finding> f(3);
  f[0].code = "unknown";
  f[1].code = "small";
  f[1].saving.total_ns = 10;
  f[2].code = "big";
  f[2].saving.total_ns = 100;
  RankFindings(f);
  EXPECT_EQ(f[0].code, "big");
  EXPECT_EQ(f[1].code, "small");
  EXPECT_EQ(f[2].code, "unknown");
}

TEST(ReportJsonTest, FindingsThatChangeResultsComeFirst) {
  // Dropout left on in evaluation saves nothing measurable but changes the
  // scores: it goes before a sync that would save 30% of a step.
  std::vector<findings::Finding> f(3);
  f[0].code = "sync-in-loop";
  f[0].saving.share_of_step = 0.3;
  f[1].code = "train-mode-in-eval";
  f[2].code = "autograd-in-eval";
  f[2].saving.share_of_step = 0.5;
  RankFindings(f);
  EXPECT_EQ(f[0].code, "train-mode-in-eval");
  EXPECT_EQ(f[1].code, "autograd-in-eval");
  EXPECT_EQ(f[2].code, "sync-in-loop");
}

TEST(ReportJsonTest, MissingFileFailsWithItsPath) {
  StatusOr<Report> r = pipeline::AnalyzeTraces({"/nonexistent/rank0.json"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/rank0.json", 0), 0u) << r.status().message();
}

}  // namespace
}  // namespace fastenough::report
