// The field declarations (report/fields): each converted struct round-trips
// (write -> read -> write gives the same text), and the declarations cover
// every key the writers write (a key written but not declared would drift).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fastenough/pipeline/analyze.h"
#include "fastenough/pipeline/assemble.h"
#include "fastenough/report/fields/declared.h"
#include "fastenough/report/fields/finding_fields.h"
#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/rank_fields.h"
#include "fastenough/report/fields/rank_summary_fields.h"
#include "fastenough/report/fields/report_fields.h"
#include "fastenough/report/fields/turns_fields.h"
#include "fastenough/report/rank_summary_json.h"

namespace fastenough::report::fields {
namespace {

std::string Data(const std::string& rel) { return std::string(FASTENOUGH_TEST_DATA) + "/" + rel; }

// The summaries of a trace with every depth analysis (memory, graphs, the
// critical path, the plugin's steps) and of a two-rank job.
std::vector<RankSummary> Samples() {
  std::vector<RankSummary> out;
  for (const auto& paths : std::vector<std::vector<std::string>>{
           {Data("golden/depth_trace.json")},
           {Data("detectors/straggler_rank0.json"), Data("detectors/straggler_rank1.json")}}) {
    pipeline::AnalyzeOptions options;
    options.threads = 1;
    StatusOr<pipeline::AnalyzedJob> job = pipeline::AnalyzeTracesWithSummaries(paths, options);
    EXPECT_TRUE(job.ok()) << job.status().message();
    if (!job.ok()) continue;
    for (const auto& s : job->summaries) {
      StatusOr<RankSummary> parsed = ParseRankSummary(s.json, "summary");
      EXPECT_TRUE(parsed.ok()) << parsed.status().message();
      if (parsed.ok()) out.push_back(std::move(parsed).value());
    }
  }
  return out;
}

// Writes obj, reads it back, writes that: the same text.
template <class T, class ViewT = void>
void ExpectRoundTrip(const T& obj, const WriteContext& ctx, const std::string& what) {
  JsonWriter first(0);
  WriteObject<T, ViewT>(first, obj, ctx);
  const std::string text = first.Take();
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(text).get(root), simdjson::SUCCESS) << what;
  Status status;
  ObjectReader o(root, "$", &status);
  T back{};
  ReadFields<T, ViewT>(o, back);
  ASSERT_TRUE(status.ok()) << what << ": " << status.message();
  JsonWriter second(0);
  WriteObject<T, ViewT>(second, back, ctx);
  EXPECT_EQ(second.str(), text) << what;
}

TEST(FieldDeclarations, EveryStructRoundTrips) {
  const std::vector<RankSummary> samples = Samples();
  ASSERT_EQ(samples.size(), 3u);
  bool memory = false, critical_path = false, graphs = false, plugin = false, efficiency = false;
  for (const RankSummary& s : samples) {
    const analysis::RankAnalysis& a = s.analysis;
    const WriteContext ctx{a.rank, nullptr, &a};
    ExpectRoundTrip(s, ctx, "summary");
    ExpectRoundTrip(s.input, ctx, "input");
    ExpectRoundTrip(s.meta, ctx, "meta");
    ExpectRoundTrip(a.steps, ctx, "steps");
    ExpectRoundTrip(a.launch, ctx, "launch");
    ExpectRoundTrip(a.step_breakdown, ctx, "step_breakdown");
    ExpectRoundTrip(a.efficiency, ctx, "efficiency");
    ExpectRoundTrip(a.critical_path, ctx, "critical_path");
    ExpectRoundTrip<analysis::RankAnalysis, Graphs>(a, ctx, "graphs");
    for (const auto& d : a.devices) ExpectRoundTrip(d, ctx, "device");
    for (const auto& k : a.kernels) ExpectRoundTrip(k, ctx, "kernel");
    for (const auto& k : a.kernels) ExpectRoundTrip<analysis::KernelRow, TopKernels>(k, ctx, "top kernel");
    for (const auto& op : a.ops) ExpectRoundTrip(op, ctx, "op");
    for (const auto& m : a.memory) ExpectRoundTrip(m, ctx, "memory");
    for (const auto& row : s.shapes) ExpectRoundTrip(row, ctx, "shape");
    memory |= !a.memory.empty();
    critical_path |= a.critical_path.window_ns > 0;
    graphs |= a.graphs.launch_count > 0 || !a.compiled.regions.empty();
    efficiency |= !a.efficiency.devices.empty() && !a.efficiency.devices[0].steps.empty();
    for (const auto& row : a.step_breakdown.steps) plugin |= row.plugin_kept;
  }
  // The samples reach every kind of object.
  EXPECT_TRUE(memory);
  EXPECT_TRUE(critical_path);
  EXPECT_TRUE(graphs);
  EXPECT_TRUE(plugin);
  EXPECT_TRUE(efficiency);
}

TEST(FieldDeclarations, TheJobsRowsRoundTrip) {
  pipeline::AnalyzeOptions options;
  options.threads = 1;
  StatusOr<pipeline::AnalyzedJob> job = pipeline::AnalyzeTracesWithSummaries(
      {Data("detectors/straggler_rank0.json"), Data("detectors/straggler_rank1.json")}, options);
  ASSERT_TRUE(job.ok()) << job.status().message();
  std::vector<RankSummary> summaries;
  for (const auto& s : job->summaries) summaries.push_back(ParseRankSummary(s.json, "s").value());
  const Report r = pipeline::AssembleReport(std::move(summaries), options.top_n);
  ASSERT_EQ(r.job_critical_path.status, "ok");
  ASSERT_FALSE(r.job_critical_path.per_rank.empty());
  ExpectRoundTrip(r.job_critical_path, {}, "job critical path");
  ExpectRoundTrip(r.steps, {}, "steps");
  RunInfo run{{"python", "train.py", "--lr=0.1"}, 1, 0, 123456789, "/tmp/rd", {"meta.json"}};
  ExpectRoundTrip(run, {}, "run");
  run.exit_status = -1;
  run.signal = 9;
  run.wall_ns = -1;
  ExpectRoundTrip(run, {}, "run killed");
  for (const auto& c : r.counters) ExpectRoundTrip(c, {}, "counter");
  for (const auto& t : r.avoidable) ExpectRoundTrip(t, {}, "avoidable");
  ASSERT_FALSE(r.findings.empty());
  for (const auto& f : r.findings) ExpectRoundTrip(f, {}, "finding");
  // Every optional key of a finding once, and the absent ones.
  findings::Finding f;
  f.code = "c";
  f.where = {{"a.py", 3, "fn", "aten::mm", "k", 7, 2, 0, "outer"}, {"b.py", 0, "", "", "", -1, -1, 9, ""}, {}};
  f.saving.share_of_step = 0.25;
  f.overlaps = {"x", "y"};
  f.also_in_source = {{"a.py", 3, "FE101"}};
  f.evidence = {{"i", int64_t{3}}, {"d", 0.5}, {"s", std::string("t")}};
  ExpectRoundTrip(f, {}, "finding with every optional key");
  PhaseRow phase;
  phase.name = "steady";
  phase.mode = "train";
  phase.rank = 1;
  phase.start_ns = 5;
  phase.end_ns = 1005;
  phase.util_mean = 97.5;
  phase.alloc_peak = 1 << 20;
  ExpectRoundTrip(phase, {}, "phase");
  CounterRow counter{"dropped", "data-loss", 3, "events dropped", {{"a.json", 2}, {"b.json", 1}}};
  ExpectRoundTrip(counter, {}, "counter");
}

TEST(FieldDeclarations, TurnsListTheKeptDevicesAndSumTheOthers) {
  analysis::DeviceTurns t;
  t.devices = {0, 1, 2};
  t.busy_ns = {10, 20, 30};
  t.windows = 2;
  t.window_ns = 100;
  t.all_busy_ns = 5;
  t.some_busy_ns = 40;
  t.all_idle_ns = 55;
  ExpectRoundTrip<analysis::DeviceTurns, TurnsOfRank>(t, {3}, "turns");
  RankRows rows;
  rows.devices_bounded = true;
  rows.device_ids = {0, 2};
  JsonWriter w(0);
  WriteObject<analysis::DeviceTurns, TurnsOfRank>(w, t, {3, &rows});
  EXPECT_EQ(w.str(),
            "{\"rank\":3,\"devices\":[0,2],\"busy_ns\":[10,30],\"omitted\":{\"count\":1,"
            "\"busy_ns\":20},\"windows\":2,\"window_ns\":100,\"all_busy_ns\":5,"
            "\"taking_turns_ns\":40,\"all_idle_ns\":55,\"overlap_bound_ns\":"
            + std::to_string(t.overlap_bound_ns()) + "}");
  // One kept device is fewer than the two the schema asks for: every one listed.
  rows.device_ids = {0};
  JsonWriter all(0);
  WriteObject<analysis::DeviceTurns, TurnsOfJob>(all, t, {0, &rows});
  EXPECT_EQ(all.str().rfind("{\"ranks\":[0,1,2],\"busy_ns\":[10,20,30],\"steps\":2,", 0), 0u);
}

// Every key path of a JSON value ("$.devices[].streams[].busy_ns").
void KeyPaths(simdjson::dom::element e, const std::string& path, std::set<std::string>& out) {
  simdjson::dom::object obj;
  simdjson::dom::array arr;
  if (e.get_object().get(obj) == simdjson::SUCCESS) {
    for (auto kv : obj) {
      const std::string p = path + "." + std::string(kv.key);
      out.insert(p);
      KeyPaths(kv.value, p, out);
    }
  } else if (e.get_array().get(arr) == simdjson::SUCCESS) {
    for (auto item : arr) KeyPaths(item, path + "[]", out);
  }
}

// Whether `path` is declared, or lies below a custom value (its own code).
bool Declared(const std::vector<FieldInfo>& declared, const std::string& path) {
  for (const auto& f : declared) {
    if (f.path == path) return true;
    const bool own_keys = f.kind == "custom" || f.kind == "map";  // keys below are not declared
    if (own_keys && path.rfind(f.path + ".", 0) == 0) return true;
    if (own_keys && path.rfind(f.path + "[]", 0) == 0) return true;
  }
  return false;
}

TEST(FieldDeclarations, DescribeEveryKeyTheSummaryWrites) {
  const std::vector<FieldInfo> declared = DescribeRankSummary();
  std::set<std::string> unique;
  for (const auto& f : declared) {
    EXPECT_TRUE(unique.insert(f.path).second) << "declared twice: " << f.path;
    EXPECT_FALSE(f.meaning.empty()) << f.path;
    EXPECT_FALSE(f.type.empty()) << f.path;
  }
  std::set<std::string> written;
  for (const RankSummary& s : Samples()) {
    const std::string text = RankSummaryToJson(s);
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(text).get(root), simdjson::SUCCESS);
    KeyPaths(root, "$", written);
  }
  ASSERT_GT(written.size(), 200u);
  for (const auto& path : written) EXPECT_TRUE(Declared(declared, path)) << "not declared: " << path;
}

TEST(FieldDeclarations, DescribeEveryKeyOfTheReportsRankObjects) {
  const std::vector<FieldInfo> declared = DescribeReport();
  pipeline::AnalyzeOptions options;
  options.threads = 1;
  std::set<std::string> written;
  for (const auto& paths : std::vector<std::vector<std::string>>{
           {Data("golden/depth_trace.json")},
           {Data("detectors/straggler_rank0.json"), Data("detectors/straggler_rank1.json")}}) {
    StatusOr<std::string> json = pipeline::AnalyzeTracesToJson(paths, options);
    ASSERT_TRUE(json.ok()) << json.status().message();
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(json.value()).get(root), simdjson::SUCCESS);
    KeyPaths(root, "$", written);
  }
  // The objects the declarations cover: every key under them is declared.
  const std::vector<std::string> covered = {
      "$.inputs[].", "$.steps.", "$.run.", "$.devices[].", "$.launch.per_rank[].",
      "$.top_kernels[].", "$.top_ops[].", "$.top_ops_by_self[].",
      "$.step_breakdown.per_rank[].", "$.efficiency.devices[].", "$.efficiency.kernels[].",
      "$.memory[].", "$.critical_path.per_rank[].", "$.graphs.per_rank[].",
      "$.critical_path.job.", "$.counters[].", "$.phases[].", "$.avoidable[].", "$.findings[].",
      "$.device_turns.per_rank[].", "$.device_turns.job."};
  size_t checked = 0;
  std::set<std::string> reached;
  for (const auto& path : written) {
    for (const auto& prefix : covered) {
      if (path.rfind(prefix, 0) != 0) continue;
      EXPECT_TRUE(Declared(declared, path)) << "not declared: " << path;
      reached.insert(prefix);
      ++checked;
    }
  }
  EXPECT_GT(checked, 150u);
  EXPECT_TRUE(reached.count("$.critical_path.job."));
  EXPECT_TRUE(reached.count("$.findings[]."));
}

TEST(FieldDeclarations, ReaderNamesThePath) {
  const std::vector<RankSummary> samples = Samples();
  ASSERT_FALSE(samples.empty());
  std::string text = RankSummaryToJson(samples[0]);
  const std::string key = "\"peak_allocated_bytes\":";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  text.replace(at + key.size(), 0, "\"x\",\"was\":");
  StatusOr<RankSummary> r = ParseRankSummary(text, "s.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "s.json: $.memory[0].peak_allocated_bytes: expected an integer");
}

}  // namespace
}  // namespace fastenough::report::fields
