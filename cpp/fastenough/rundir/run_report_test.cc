#include "fastenough/rundir/run_report.h"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace fastenough::rundir {
namespace {

namespace fs = std::filesystem;

class RundirReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("rundir_" + std::to_string(getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "agent");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

const char kMeta[] = R"({"command":["python","train.py"],"start_wall_ns":1000,"end_wall_ns":5000,
 "exit_status":1,"signal":null,"visible_devices":{"physical":[0]},
 "other_processes":[{"source":"nvml","device":0,"pid":777,"max_used_bytes":1073741824}],
 "host":"box"})";

TEST_F(RundirReport, BuildsPhasesStepsRunAndFindings) {
  Write("meta.json", kMeta);
  Write("agent/10.json", R"({"pid":10,"rank":0,"role":"main","agent_error":null,"profile":null})");
  Write("phases.jsonl",
        R"({"rank":0,"pid":10,"phase":"steady","edge":"begin","mono_ns":100,"wall_ns":1100,"synced":true,"auto":true})"
        "\n"
        R"({"rank":0,"pid":10,"phase":"steady","edge":"end","mono_ns":2100,"wall_ns":3100,"synced":true,"auto":true,"memory":{"device":"cuda:0","allocated_bytes":1,"reserved_bytes":2,"alloc_peak_bytes":3,"reserved_peak_bytes":4,"rss_bytes":5}})"
        "\n"
        R"({"rank":0,"pid":10,"phase":"tail","edge":"beg)"  // cut off by a crash
  );
  Write("steps.jsonl",
        R"({"rank":0,"pid":10,"index":0,"start_mono_ns":100,"end_mono_ns":1100,"start_wall_ns":1100,"end_wall_ns":2100,"items":4,"tokens":null,"source":"explicit","phase":"steady"})"
        "\n"
        R"({"rank":0,"pid":10,"index":1,"start_mono_ns":1100,"end_mono_ns":2100,"start_wall_ns":2100,"end_wall_ns":3100,"items":4,"tokens":null,"source":"explicit","phase":"steady"})"
        "\n");
  Write("samples.csv",
        "wall_ns,source,device,util_pct,mem_used_bytes,mem_total_bytes,power_w,sm_clock_mhz,cpu_pct,rss_bytes\n"
        "2000,nvml,0,80,98,100,300,1980,,\n"
        "2000,proc,,,,,,,120.5,4096\n");
  Write("trace/rank0.pt.trace.json.gz", "this is not gzip");

  auto json = AnalyzeRunDirToJson(dir_.string());
  ASSERT_TRUE(json.ok()) << json.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(*json).get(doc), simdjson::SUCCESS) << *json;

  EXPECT_EQ(std::string_view(doc["schema"]), "fastenough.report/1");
  simdjson::dom::array phases = doc["phases"];
  ASSERT_EQ(phases.size(), 1u);
  auto steady = phases.at(0);
  EXPECT_EQ(std::string_view(steady["name"]), "steady");
  EXPECT_EQ(int64_t(steady["host_ns"]), 2000);
  EXPECT_DOUBLE_EQ(double(steady["util_mean"]), 80);
  EXPECT_DOUBLE_EQ(double(steady["device_busy_share"]), 0.8);
  EXPECT_EQ(int64_t(steady["mem_used_max"]), 98);
  EXPECT_EQ(int64_t(steady["alloc_peak"]), 3);
  EXPECT_EQ(int64_t(steady["reserved_peak"]), 4);

  // 2 steady steps over 2000 ns: 1e6 steps/s; 8 items: 4e6 items/s.
  EXPECT_NEAR(double(doc["steps"]["steady_steps_per_s"]), 1e6, 1e-3);
  EXPECT_NEAR(double(doc["steps"]["items_per_s"]), 4e6, 1e-3);
  EXPECT_TRUE(doc["steps"]["tokens_per_s"].is_null());
  EXPECT_EQ(int64_t(doc["steps"]["steady_count"]), 2);

  EXPECT_EQ(int64_t(doc["run"]["exit_status"]), 1);
  EXPECT_EQ(int64_t(doc["run"]["wall_ns"]), 4000);
  EXPECT_EQ(std::string_view(doc["run"]["command"].at(1)), "train.py");
  EXPECT_EQ(std::string_view(doc["meta"]["host"]), "box");
  EXPECT_EQ(int64_t(doc["meta"]["agents"].at(0)["pid"]), 10);

  // device-shared from the other process; memory-near-limit from 98/100.
  std::vector<std::string> codes;
  for (auto f : simdjson::dom::array(doc["findings"])) codes.emplace_back(std::string_view(f["code"]));
  EXPECT_NE(std::find(codes.begin(), codes.end(), "device-shared"), codes.end());
  EXPECT_NE(std::find(codes.begin(), codes.end(), "memory-near-limit"), codes.end());

  // The broken trace and the cut-off line are named, not fatal.
  std::string problems = simdjson::minify(doc["run_details"]["problems"]);
  EXPECT_NE(problems.find("rank0.pt.trace.json.gz"), std::string::npos) << problems;
  EXPECT_NE(problems.find("phases.jsonl:3"), std::string::npos) << problems;
  EXPECT_DOUBLE_EQ(double(doc["run_details"]["phases"].at(0)["cpu_mean_pct"]), 120.5);
  EXPECT_EQ(std::string_view(doc["run_details"]["phases"].at(0)["busy_source"]), "util");
}

TEST_F(RundirReport, ImportsFindingsDecidedByTheAgentChecks) {
  Write("checks.json", R"({"schema":"fastenough.checks/1","checks_error":"probe failed",
    "findings":[{"code":"autograd-in-eval","verdict":"avoidable","title":"Graph recorded",
      "source":"agent","evidence":{"graph_bytes_per_forward":4096,"share":0.25,"mode":"train"},
      "where":[{"file":"eval.py","line":12,"function":"score"}],
      "saving":{"per_step_ns":1000,"share_of_step":0.1,"total_ns":null,"upper_bound":true},
      "action":"Wrap the loop in torch.inference_mode().","rank":0},
     {"verdict":"bounded"}]})");
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  const auto& f = rr->report.findings;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "autograd-in-eval");
  EXPECT_EQ(f[0].verdict, findings::Verdict::kAvoidable);
  EXPECT_EQ(f[0].source, "agent");
  EXPECT_EQ(f[0].rank, 0);
  ASSERT_EQ(f[0].evidence.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(f[0].evidence[0].second), 4096);
  EXPECT_DOUBLE_EQ(std::get<double>(f[0].evidence[1].second), 0.25);
  EXPECT_EQ(std::get<std::string>(f[0].evidence[2].second), "train");
  ASSERT_EQ(f[0].where.size(), 1u);
  EXPECT_EQ(f[0].where[0].file, "eval.py");
  EXPECT_EQ(f[0].where[0].line, 12);
  EXPECT_EQ(f[0].saving.per_step_ns, 1000);
  EXPECT_DOUBLE_EQ(f[0].saving.share_of_step, 0.1);
  EXPECT_EQ(f[0].saving.total_ns, -1);
  std::string all;
  for (const auto& p : rr->problems) all += p + "\n";
  EXPECT_NE(all.find("checks stopped: probe failed"), std::string::npos) << all;
  EXPECT_NE(all.find("without a code"), std::string::npos) << all;
}

TEST_F(RundirReport, EmptyDirectoryStillReports) {
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  EXPECT_TRUE(rr->phases.empty());
  ASSERT_TRUE(rr->report.run.has_value());
  const auto& missing = rr->report.run->missing;
  EXPECT_NE(std::find(missing.begin(), missing.end(), "meta.json"), missing.end());
  EXPECT_NE(std::find(missing.begin(), missing.end(), "samples.csv"), missing.end());
  EXPECT_TRUE(rr->report.findings.empty());
}

TEST_F(RundirReport, ReportsProgressPerTraceFile) {
  // Two traces (one good, one damaged): progress climbs through both files and
  // ends at (2000, 2000); a damaged file still counts as done.
  Write("trace/rank0.pt.trace.json",
        R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5}]})");
  Write("trace/rank1.pt.trace.json.gz", "this is not gzip");
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  RunReportOptions o;
  o.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
  auto rr = AnalyzeRunDir(dir_.string(), o);
  ASSERT_TRUE(rr.ok());
  ASSERT_FALSE(calls.empty());
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, 2000u);
    EXPECT_LE(calls[i].first, 2000u);
    if (i) EXPECT_GE(calls[i].first, calls[i - 1].first);
  }
  EXPECT_EQ(calls.back(), std::make_pair(uint64_t{2000}, uint64_t{2000}));
}

TEST_F(RundirReport, NoProgressWithoutTraces) {
  int n = 0;
  RunReportOptions o;
  o.progress = [&](uint64_t, uint64_t) { ++n; };
  ASSERT_TRUE(AnalyzeRunDir(dir_.string(), o).ok());
  EXPECT_EQ(n, 0);
}

TEST_F(RundirReport, KeepsTheBatchSweepOfTheWorkload) {
  // As fastenough.sweep_batch writes it (python/fastenough/measure/sweep.py);
  // the report writes the declared keys (fields/rank_fields.h) in their order.
  Write("sweep_batch.json",
        R"json({"points": [{"size": 8, "status": "ok", "round_s": [0.5, 0.25],
                            "calls_per_round": 3, "median_s": 0.125, "items": 8,
                            "items_per_s": 980.5, "tokens": null, "tokens_per_s": null,
                            "peak_bytes": null},
                           {"size": 16, "status": "out of memory (MemoryError)"}],
                "knee": 8, "best": 8, "within": 0.05, "device": "cpu",
                "protocol_change": false, "semantics": [], "out_of_memory_at": 16,
                "notes": ["batch 16 ran out of memory; larger sizes were not tried"],
                "warnings": []})json");
  auto json = AnalyzeRunDirToJson(dir_.string());
  ASSERT_TRUE(json.ok());
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(*json);
  EXPECT_EQ(int64_t(doc["meta"]["batch_sweep"]["knee"]), 8);
  EXPECT_EQ(std::string_view(doc["meta"]["batch_sweep"]["points"].at(1)["status"]),
            "out of memory (MemoryError)");
  EXPECT_EQ(std::string(simdjson::minify(doc["meta"]["batch_sweep"])),
            R"j({"points":[{"size":8,"status":"ok","round_s":[0.5,0.25],"calls_per_round":3,)j"
            R"j("median_s":0.125,"items":8,"items_per_s":980.5,"tokens":null,)j"
            R"j("tokens_per_s":null,"peak_bytes":null},)j"
            R"j({"size":16,"status":"out of memory (MemoryError)"}],"knee":8,"best":8,)j"
            R"j("within":0.05,"device":"cpu","protocol_change":false,"semantics":[],)j"
            R"j("out_of_memory_at":16,)j"
            R"j("notes":["batch 16 ran out of memory; larger sizes were not tried"],)j"
            R"j("warnings":[]})j");
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  ASSERT_TRUE(rr->report.meta.batch_sweep.has_value());
  EXPECT_EQ(rr->report.meta.batch_sweep->points[0].calls_per_round, 3);
  EXPECT_EQ(rr->report.meta.batch_sweep->points[0].tokens, -1);
}

TEST_F(RundirReport, ACutOffBatchSweepIsAProblemNotAFailure) {
  Write("sweep_batch.json", R"({"points": [{"size": 8)");
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  std::string all;
  for (const auto& p : rr->problems) all += p + "\n";
  EXPECT_NE(all.find("sweep_batch.json: not JSON"), std::string::npos) << all;
  EXPECT_FALSE(rr->report.meta.batch_sweep.has_value());
}

TEST_F(RundirReport, ABatchSweepOfAnotherShapeIsAProblemNamingTheKey) {
  Write("sweep_batch.json", R"({"points": [{"size": "eight", "status": "ok"}], "knee": 8})");
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  std::string all;
  for (const auto& p : rr->problems) all += p + "\n";
  EXPECT_NE(all.find("sweep_batch.json: $.points[0].size"), std::string::npos) << all;
  EXPECT_FALSE(rr->report.meta.batch_sweep.has_value());
}

// meta.json as the supervisor writes it (python/fastenough/supervisor/session.py,
// Python's json): its record comes back in the report's meta through its
// declaration (report/fields/meta_record_fields.h), each key as the file had
// it: lists and objects on one line, floats spelt as Python spells them.
TEST_F(RundirReport, KeepsMetaJsonsRecordAsTheFileHadIt) {
  Write("meta.json",
        R"({"schema": "fastenough.meta/1", "fastenough_version": "0.9.0",
            "command": ["python", "train.py", "--lr", "0.1"], "cwd": "/home/a/proj",
            "git": {"revision": "0123abc", "dirty": null}, "host": "box",
            "supervisor_python": "3.11.9",
            "agent_opts": {"trace": false, "trace_steps": 5, "warmup_steps": 3, "probe": false,
                           "trace_gloo": true, "trace_shapes": true, "timing_only": true,
                           "trace_memory_mib": 64.0, "analyze_in_job": true,
                           "in_job_timeout": 60.0},
            "start_wall_ns": 1000, "end_wall_ns": 5000, "exit_status": 0, "signal": null,
            "interrupted": false,
            "sampler": {"hz": 2.0, "backends": [{"name": "nvml", "present": false,
                                                 "detail": "no libnvidia-ml.so.1"}],
                        "ticks": 7},
            "devices": [{"source": "nvml", "index": 0, "name": "NVIDIA H100", "uuid": null,
                         "bus_id": "00000000:01:00.0", "mem_total_bytes": 85899345920}],
            "visible_devices": {"variable": "CUDA_VISIBLE_DEVICES", "value": "", "physical": []},
            "other_processes": [{"source": "nvml", "device": 0, "pid": 77,
                                 "max_used_bytes": null, "ticks_seen": 3}],
            "agents": []})");
  auto json = AnalyzeRunDirToJson(dir_.string());
  ASSERT_TRUE(json.ok()) << json.status().message();
  const char* lines[] = {
      R"( "schema": "fastenough.meta/1",)",
      R"( "command": ["python","train.py","--lr","0.1"],)",
      R"( "git": {"revision":"0123abc","dirty":null},)",
      R"( "agent_opts": {"trace":false,"trace_steps":5,"warmup_steps":3,"probe":false,)"
      R"("trace_gloo":true,"trace_shapes":true,"timing_only":true,"trace_memory_mib":64.0,)"
      R"("analyze_in_job":true,"in_job_timeout":60.0},)",
      R"( "end_wall_ns": 5000,)",
      R"( "signal": null,)",
      R"( "sampler": {"hz":2.0,"backends":[{"name":"nvml","present":false,)"
      R"("detail":"no libnvidia-ml.so.1"}],"ticks":7},)",
      R"( "devices": [{"source":"nvml","index":0,"name":"NVIDIA H100","uuid":null,)"
      R"("bus_id":"00000000:01:00.0","mem_total_bytes":85899345920}],)",
      R"( "visible_devices": {"variable":"CUDA_VISIBLE_DEVICES","value":"","physical":[]},)",
      R"( "other_processes": [{"source":"nvml","device":0,"pid":77,"max_used_bytes":null,)"
      R"("ticks_seen":3}],)",
      R"( "agents": [])",
  };
  for (const char* line : lines) EXPECT_NE(json->find(line), std::string::npos) << line << "\n" << *json;
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  const report::MetaRecord& m = rr->report.meta.record;
  EXPECT_DOUBLE_EQ(m.sampler.hz, 2.0);
  ASSERT_TRUE(m.git.has_value());
  EXPECT_FALSE(m.git->dirty.has_value());
  ASSERT_TRUE(m.visible_devices.has_value());
  EXPECT_EQ(m.visible_devices->value, std::optional<std::string>(""));
  EXPECT_FALSE(m.signal.has_value());
  EXPECT_EQ(m.devices.at(0).bus_id, std::optional<std::string>("00000000:01:00.0"));
  EXPECT_FALSE(m.devices.at(0).uuid.has_value());
}

// agent/<pid>.json read through its declaration (report/fields/meta_agent_fields.h):
// the report writes it back as the file had it, its keys (and a nested object's,
// and a map's) in the file's order, Python's float spelling, its nulls; and the
// run's analysis reads the typed record (the own-cost guard's switch, the split).
TEST_F(RundirReport, KeepsAnAgentsRecordAsTheFileHadIt) {
  const std::string record =
      R"({"pid":10,"rank":null,"role":"main","torch":"2.13.0","devices":[{"device":"cpu","name":"x"}],)"
      R"("profile":{"trace":null,"skipped":"why","first_step":3,"stopped_early":"grew",)"
      R"("peak_rss_rise_bytes":5},"step_sources":{"eval":null,"train":"module"},)"
      R"("step_split":{"eval":{"steps":4,"step_ns":40,"data_ns_p10":2},"train":{}},)"
      R"("model_call_site":{"train":{"file":"/p/t.py","line":null,"function":"main"}},)"
      R"("agent_error":"own cost: grew","own_cost":{"last_interval":{"steps":8,)"
      R"("own_ns_per_step":1,"share":1e-05,"records":3},"switched_off":"own cost: grew"},)"
      R"("records":{"dir":"/o","dtypes":{"float32":2},"error":null},"libraries":{"numpy":"2.4.6"}})";
  Write("agent/10.json", record);
  auto json = AnalyzeRunDirToJson(dir_.string());
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_NE(json->find(R"( "agents": [)" + record + "]"), std::string::npos) << *json;
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  ASSERT_TRUE(rr->report.meta.agents.has_value());
  const report::MetaAgent& a = rr->report.meta.agents->at(0);
  EXPECT_EQ(a.step_split.at(0).first, "eval");
  EXPECT_EQ(a.step_split.at(0).second.data_ns_p10, 2);
  EXPECT_FALSE(a.step_sources.at(0).second.has_value());
  EXPECT_FALSE(a.model_call_site.at(0).second.line.has_value());
  EXPECT_DOUBLE_EQ(a.own_cost.last_interval->share, 1e-05);
  // The guard switched the agent off on purpose: said as such, not as an internal error.
  EXPECT_NE(json->find("because its own cost grew (own cost: grew)"), std::string::npos);
}

TEST_F(RundirReport, AnAgentsRecordWithAKeyOfAnotherTypeIsLeftOutAndNamed) {
  Write("agent/10.json", R"({"pid":10,"role":"main","cpu":{"cores":"two"}})");
  Write("agent/11.json", R"({"pid":11,"role":"worker"})");
  auto json = AnalyzeRunDirToJson(dir_.string());
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("agent/10.json: $.cpu.cores: expected an integer or null; ignored"),
            std::string::npos)
      << *json;
  EXPECT_NE(json->find(R"( "agents": [{"pid":11,"role":"worker"}])"), std::string::npos) << *json;
}

// A run that never ended, or an older or hand-made file: only its keys.
TEST_F(RundirReport, AMetaJsonKeepsOnlyTheKeysItHad) {
  Write("meta.json", kMeta);
  auto json = AnalyzeRunDirToJson(dir_.string());
  ASSERT_TRUE(json.ok());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(*json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["meta"]["host"]), "box");
  EXPECT_TRUE(doc["meta"]["signal"].is_null());
  EXPECT_EQ(std::string(simdjson::minify(doc["meta"]["visible_devices"])), R"({"physical":[0]})");
  EXPECT_EQ(std::string(simdjson::minify(doc["meta"]["other_processes"])),
            R"([{"source":"nvml","device":0,"pid":777,"max_used_bytes":1073741824}])");
  for (const char* absent : {"schema", "git", "sampler", "devices", "interrupted"}) {
    EXPECT_EQ(doc["meta"][absent].error(), simdjson::NO_SUCH_FIELD) << absent;
  }
}

TEST_F(RundirReport, AMetaJsonKeyOfAnotherTypeIsAProblemNamingTheKey) {
  Write("meta.json", R"({"command": ["python", "x.py"], "cwd": "/p", "git": {"revision": 5}})");
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  std::string all;
  for (const auto& p : rr->problems) all += p + "\n";
  EXPECT_NE(all.find("meta.json: $.git.revision: "), std::string::npos) << all;
  EXPECT_TRUE(rr->report.meta.record.recorded.keys.empty());
  ASSERT_TRUE(rr->report.run.has_value());  // the run's own facts are read regardless
  EXPECT_EQ(rr->report.run->command, (std::vector<std::string>{"python", "x.py"}));
}

TEST_F(RundirReport, MissingDirectoryIsNotFound) {
  auto rr = AnalyzeRunDir((dir_ / "nope").string());
  ASSERT_FALSE(rr.ok());
  EXPECT_EQ(rr.status().code(), StatusCode::kNotFound);
}

TEST_F(RundirReport, AnalysesACorpusTraceWhenPresent) {
  fs::path corpus(FASTENOUGH_CORPUS);
  fs::path pick;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(corpus, ec)) {
    std::string n = e.path().filename().string();
    if (e.is_regular_file() && n.size() > 8 && n.substr(n.size() - 8) == ".json.gz" &&
        e.file_size() < 4 * 1024 * 1024) {
      pick = e.path();
      break;
    }
  }
  if (pick.empty()) GTEST_SKIP() << "corpus not present";
  fs::create_directories(dir_ / "trace");
  fs::copy_file(pick, dir_ / "trace" / "rank0.pt.trace.json.gz");
  Write("phases.jsonl",
        R"({"rank":0,"pid":1,"phase":"profile","edge":"begin","mono_ns":0,"wall_ns":0,"auto":true})"
        "\n"
        R"({"rank":0,"pid":1,"phase":"profile","edge":"end","mono_ns":10,"wall_ns":10,"auto":true})"
        "\n");
  auto rr = AnalyzeRunDir(dir_.string());
  ASSERT_TRUE(rr.ok());
  EXPECT_EQ(rr->traces.size(), 1u) << (rr->problems.empty() ? "" : rr->problems[0]);
  EXPECT_FALSE(rr->report.inputs.empty());
  ASSERT_EQ(rr->phases.size(), 1u);
  if (!rr->report.ranks.empty() && !rr->report.ranks[0].devices.empty()) {
    EXPECT_EQ(rr->phases[0].busy_source, "trace");
    EXPECT_GT(rr->phases[0].device_busy_share.value(), 0.0);
    EXPECT_LE(rr->phases[0].device_busy_share.value(), 1.0);
  }
}

}  // namespace
}  // namespace fastenough::rundir
