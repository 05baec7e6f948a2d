// analyze_stages PATH [REPS]: the analyze pipeline of one trace, stage by
// stage (load, each analysis of AnalyzeRank, the detectors, the summary, the
// report and its JSON), with the CPU seconds each took (the process's CPU
// clock: on a loaded machine wall time mostly measures the wait for a core;
// this program runs every stage on one thread) and the wall seconds: a
// profiling aid for finding where analyze's time goes above the parse floor
// (bench/ has the real numbers). With REPS > 1 every stage runs REPS times and
// the medians are shown. Frame roots are empty (the CLI passes the program's
// sys.path).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "fastenough/analysis/call_sites.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/steady_window.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/pipeline/assemble.h"
#include "fastenough/report/rank_summary.h"
#include "fastenough/report/report_json.h"
#include "fastenough/stats/quantile.h"
#include "fastenough/timeline/step_windows.h"
#include "fastenough/trace/load_trace.h"

namespace {

using Clock = std::chrono::steady_clock;

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

struct Stages {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> cpu, wall;
  template <class F>
  auto Time(const std::string& name, F&& f) {
    const auto t0 = Clock::now();
    const double c0 = CpuSeconds();
    auto result = f();
    const double c = CpuSeconds() - c0;
    const double w = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!cpu.count(name)) order.push_back(name);
    cpu[name].push_back(c);
    wall[name].push_back(w);
    return result;
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace fastenough;
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: analyze_stages PATH [REPS]\n");
    return 2;
  }
  const int reps = argc == 3 ? std::max(1, std::atoi(argv[2])) : 1;
  Stages st;
  for (int rep = 0; rep < reps; ++rep) {
    auto loaded = st.Time("load", [&] { return trace::LoadTrace(argv[1]); });
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().message().c_str());
      return 1;
    }
    trace::EventStore& store = loaded.value();
    if (store.path.empty()) store.path = argv[1];
    analysis::RankAnalysis r;
    r.rank = store.rank;
    r.path = store.path;
    const std::vector<uint32_t> index =
        st.Time("device_index", [&] { return analysis::DeviceActivityIndex(store); });
    r.devices = st.Time("devices", [&] { return analysis::AnalyzeDevices(store, index, {}); });
    int64_t busy_sum = 0;
    for (const auto& d : r.devices) {
      r.busy_all = timeline::Union(r.busy_all, d.busy);
      busy_sum += d.busy_ns;
    }
    r.steps = st.Time("steps", [&] {
      return analysis::AnalyzeSteps(timeline::FindStepWindows(store), r.busy_all);
    });
    r.launch = st.Time("launch", [&] { return analysis::AnalyzeLaunches(store, index); });
    r.kernels =
        st.Time("kernels", [&] { return analysis::AggregateKernels(store, index, busy_sum); });
    r.ops = st.Time("ops", [&] { return analysis::AggregateOps(store); });
    r.steady = st.Time("steady", [&] { return analysis::SteadyWindows(store, r.steps); });
    r.step_breakdown =
        st.Time("step_breakdown", [&] { return analysis::AnalyzeStepBreakdown(store, r.steps); });
    r.efficiency = st.Time("efficiency", [&] {
      return analysis::AnalyzeKernelEfficiency(store, r.steps, r.steady, index);
    });
    r.memory = st.Time("memory", [&] { return analysis::AnalyzeMemory(store, r.steps); });
    r.critical_path =
        st.Time("critical_path", [&] { return analysis::AnalyzeCriticalPath(store, r.steady); });
    r.graphs = st.Time("graphs", [&] { return analysis::AnalyzeGraphLaunches(store); });
    r.compiled = st.Time("compiled", [&] { return analysis::AnalyzeCompiledRegions(store); });
    r.device_turns =
        st.Time("device_turns", [&] { return analysis::AnalyzeDeviceTurns(r.devices, r.steady); });
    const analysis::SourceFrames frames{analysis::FrameClassifier(),
                                        analysis::CallSites::ForTrace(store.path)};
    std::vector<findings::Finding> found =
        st.Time("detect", [&] { return findings::DetectAll(store, r, &frames); });
    for (auto& f : found) {
      if (f.rank < 0) f.rank = store.rank;
    }
    report::RankSummary summary = st.Time("summarize", [&] {
      return report::SummarizeRank(store, std::move(r), std::move(found), true, 0);
    });
    std::vector<report::RankSummary> summaries;
    summaries.push_back(std::move(summary));
    report::Report doc =
        st.Time("assemble", [&] { return pipeline::AssembleReport(std::move(summaries), 20); });
    const std::string json = st.Time("to_json", [&] { return report::ReportToJson(doc); });
    st.Time("free_store", [&] {
      trace::EventStore gone = std::move(store);
      return 0;
    });
    if (rep == 0) std::fprintf(stderr, "report %zu bytes\n", json.size());
  }
  double total_cpu = 0, total_wall = 0;
  std::printf("%-15s %9s %9s\n", "stage", "cpu s", "wall s");
  for (const std::string& name : st.order) {
    const double c = stats::Median(st.cpu[name]), w = stats::Median(st.wall[name]);
    total_cpu += c;
    total_wall += w;
    std::printf("%-15s %9.4f %9.4f\n", name.c_str(), c, w);
  }
  std::printf("%-15s %9.4f %9.4f\n", "total", total_cpu, total_wall);
  return 0;
}
