#include "fastenough/pipeline/analyze.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/analysis/collectives.h"
#include "fastenough/analysis/shapes.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/pipeline/assemble.h"
#include "fastenough/report/rank_summary_json.h"
#include "fastenough/report/report_json.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::pipeline {

using report::RankSummary;
using report::RankSummaryToJson;
using report::Report;
using report::ReportToJson;
using report::SummarizeRank;


namespace {

// Sums per-file progress into one (done, total) over all inputs. Each file
// reports its own (done, total of its JSON text); totals become known as
// files start, so `total` can grow while loading.
class ProgressAggregator {
 public:
  ProgressAggregator(size_t n, std::function<void(uint64_t, uint64_t)> sink)
      : done_(n, 0), total_(n, 0), sink_(std::move(sink)) {}
  void Update(size_t i, uint64_t done, uint64_t total) {
    std::lock_guard<std::mutex> lock(mu_);
    done_[i] = done;
    total_[i] = total;
    uint64_t d = 0, t = 0;
    for (size_t k = 0; k < done_.size(); ++k) {
      d += done_[k];
      t += total_[k];
    }
    sink_(d, t);
  }

 private:
  std::mutex mu_;
  std::vector<uint64_t> done_, total_;
  std::function<void(uint64_t, uint64_t)> sink_;
};

// What a rank's summary and detectors read from its store alone.
struct StoreOnly {
  analysis::CallTree tree;
  analysis::RankCollectives collectives;
  std::optional<std::vector<analysis::ShapeRow>> shapes;
  roofline::RankRoofline roofline;
};

// The rank's roofline: each kernel belongs to the cpu op enclosing its launch.
roofline::RankRoofline RankRooflineOf(const trace::EventStore& store,
                                      const analysis::CallTree& tree, size_t top_n,
                                      const roofline::PeakSettings& peaks) {
  return roofline::ComputeRankRoofline(store, top_n, peaks, [&](int32_t launch) {
    return tree.Enclosing(store, launch, trace::EventKind::kCpuOp);
  });
}

StoreOnly TakeStoreOnly(const trace::EventStore& store, bool with_shapes, size_t top_n,
                        const roofline::PeakSettings& peaks) {
  StoreOnly s;
  s.tree = analysis::BuildCallTree(store);
  s.collectives = analysis::CollectCollectives(store);
  if (with_shapes) s.shapes = analysis::ShapeCensus(store);
  s.roofline = RankRooflineOf(store, s.tree, top_n, peaks);
  return s;
}

// Analyses one loaded rank and keeps what the report needs of it.
// parallel: the pipeline has cores to spare (fewer ranks than cores); the
// work that reads the store alone then runs on other threads beside the
// analyses. Each part writes its own result, so the summary is the same.
RankSummary AnalyzeOne(const trace::EventStore& store, const AnalyzeOptions& options,
                       bool with_shapes, size_t input_index, bool parallel) {
  if (!parallel) {
    analysis::RankAnalysis analysis = analysis::AnalyzeRank(store, options.rank);
    // The agent's callsites file beside the trace gives the lines of calls.
    const analysis::SourceFrames frames{analysis::FrameClassifier(options.frame_roots),
                                        analysis::CallSites::ForTrace(store.path)};
    analysis::CallTree tree = analysis::BuildCallTree(store);
    roofline::RankRoofline roof = RankRooflineOf(store, tree, options.top_n, options.peaks);
    std::vector<findings::Finding> found =
        findings::DetectAll(store, analysis, &frames, std::move(tree), &roof);
    for (auto& f : found) {
      if (f.rank < 0) f.rank = store.rank;
    }
    RankSummary s =
        SummarizeRank(store, std::move(analysis), std::move(found), with_shapes, input_index);
    s.roofline = std::move(roof);
    s.roofline.rank = s.analysis.rank;
    return s;
  }
  std::future<StoreOnly> side =
      std::async(std::launch::async, TakeStoreOnly, std::cref(store), with_shapes, options.top_n,
                 std::cref(options.peaks));
  analysis::RankOptions rank_options = options.rank;
  rank_options.parallel = true;
  analysis::RankAnalysis analysis = analysis::AnalyzeRank(store, rank_options);
  const analysis::SourceFrames frames{analysis::FrameClassifier(options.frame_roots),
                                      analysis::CallSites::ForTrace(store.path)};
  StoreOnly taken = side.get();
  std::vector<findings::Finding> found =
      findings::DetectAll(store, analysis, &frames, std::move(taken.tree), &taken.roofline);
  for (auto& f : found) {
    if (f.rank < 0) f.rank = store.rank;
  }
  RankSummary s = SummarizeRank(store, std::move(analysis), std::move(found),
                                std::move(taken.collectives), std::move(taken.shapes), input_index);
  s.roofline = std::move(taken.roofline);
  s.roofline.rank = s.analysis.rank;
  return s;
}

// Whether a rank's analysis may use more threads than its own: the pipeline
// runs `threads` ranks at once.
bool SpareCores(size_t threads) {
  return threads < std::max(1u, std::thread::hardware_concurrency());
}

// Loads and summarises every trace; each loader thread frees a rank's store
// before it loads the next, so at most `threads` stores are alive at once.
// all_shapes: every rank's shape census (for summaries written to files);
// otherwise only the first input's, the one the report shows.
StatusOr<std::vector<RankSummary>> SummarizeTraces(const std::vector<std::string>& paths,
                                                   const AnalyzeOptions& options,
                                                   bool all_shapes) {
  if (paths.empty()) return InvalidArgument("no trace files given");
  const size_t n = paths.size();
  // One file given twice (under two names, or a link to it) is one rank
  // twice: refused before anything is loaded.
  {
    std::map<std::pair<dev_t, ino_t>, size_t> files;
    for (size_t i = 0; i < n; ++i) {
      struct stat st {};
      if (stat(paths[i].c_str(), &st) != 0) continue;  // the loader says why
      auto [it, inserted] = files.emplace(std::make_pair(st.st_dev, st.st_ino), i);
      if (!inserted) {
        return InvalidArgument(paths[it->second] + (paths[it->second] == paths[i] ? "" : " and " + paths[i]) +
                               (paths[it->second] == paths[i] ? " is given twice" : " are the same file") +
                               ": a job's report takes one trace per rank; give it once");
      }
    }
  }
  std::vector<std::optional<RankSummary>> summaries(n);
  std::vector<Status> errors(n);
  std::optional<ProgressAggregator> progress;
  if (options.progress) progress.emplace(n, options.progress);

  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, n);
  const bool parallel = SpareCores(threads);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) {
      trace::LoadOptions lo;
      if (progress) {
        lo.progress = [&progress, i](uint64_t done, uint64_t total) {
          progress->Update(i, done, total);
        };
      }
      StatusOr<trace::EventStore> loaded = trace::LoadTrace(paths[i], lo);
      if (!loaded.ok()) {
        errors[i] = loaded.status();
        continue;
      }
      // Analyse in the same thread while the store is hot in cache; ranks
      // analyse in parallel like they load. The store is freed at the end of
      // this iteration, before the thread loads its next rank.
      trace::EventStore& store = loaded.value();
      if (store.path.empty()) store.path = paths[i];
      summaries[i] = AnalyzeOne(store, options, all_shapes || i == 0, i, parallel);
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }

  std::vector<RankSummary> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!errors[i].ok()) {
      const Status& st = errors[i];
      // The reader may already name the file; make sure the message starts with it.
      if (st.message().rfind(paths[i], 0) == 0) return st;
      return Status(st.code(), paths[i] + ": " + st.message());
    }
    out.push_back(std::move(*summaries[i]));
  }
  FE_RETURN_IF_ERROR(CheckOneInputPerRank(out, "traces"));
  return out;
}

}  // namespace

Report BuildReport(const std::vector<const trace::EventStore*>& stores,
                   const AnalyzeOptions& options) {
  std::vector<RankSummary> summaries;
  for (size_t i = 0; i < stores.size(); ++i) {
    summaries.push_back(AnalyzeOne(*stores[i], options, i == 0, i, SpareCores(1)));
  }
  return AssembleReport(std::move(summaries), options.top_n);
}

StatusOr<Report> AnalyzeTraces(const std::vector<std::string>& paths,
                               const AnalyzeOptions& options) {
  StatusOr<std::vector<RankSummary>> summaries = SummarizeTraces(paths, options, false);
  if (!summaries.ok()) return summaries.status();
  return AssembleReport(std::move(summaries).value(), options.top_n);
}

StatusOr<std::string> AnalyzeTracesToJson(const std::vector<std::string>& paths,
                                          const AnalyzeOptions& options) {
  StatusOr<Report> r = AnalyzeTraces(paths, options);
  if (!r.ok()) return r.status();
  return ReportToJson(r.value());
}

StatusOr<AnalyzedJob> AnalyzeTracesWithSummaries(const std::vector<std::string>& paths,
                                                 const AnalyzeOptions& options) {
  StatusOr<std::vector<RankSummary>> summaries = SummarizeTraces(paths, options, true);
  if (!summaries.ok()) return summaries.status();
  AnalyzedJob job;
  for (const RankSummary& s : summaries.value()) {
    job.summaries.push_back({s.analysis.rank, RankSummaryToJson(s)});
  }
  job.report_json = ReportToJson(AssembleReport(std::move(summaries).value(), options.top_n));
  return job;
}

StatusOr<AnalyzedJob::Summary> SummarizeTraceToJson(const std::string& path,
                                                    const AnalyzeOptions& options,
                                                    size_t input_index) {
  StatusOr<std::vector<RankSummary>> summaries = SummarizeTraces({path}, options, true);
  if (!summaries.ok()) return summaries.status();
  RankSummary& s = summaries.value().front();
  s.input_index = input_index;
  return AnalyzedJob::Summary{s.analysis.rank, RankSummaryToJson(s)};
}

}  // namespace fastenough::pipeline
