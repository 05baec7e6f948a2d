#include "fastenough/report/analyze.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "fastenough/analysis/shapes.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/report/report_json.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::report {

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

// Per-rank results computed by whoever holds the store (a loader thread).
struct RankResult {
  analysis::RankAnalysis analysis;
  std::vector<findings::Finding> findings;
};

RankResult AnalyzeOne(const trace::EventStore& store, const AnalyzeOptions& options) {
  RankResult out;
  out.analysis = analysis::AnalyzeRank(store, options.rank);
  // The agent's callsites file beside the trace gives the lines of calls.
  const analysis::SourceFrames frames{analysis::FrameClassifier(options.frame_roots),
                                      analysis::CallSites::ForTrace(store.path)};
  out.findings = findings::DetectAll(store, out.analysis, &frames);
  for (auto& f : out.findings) {
    if (f.rank < 0) f.rank = store.rank;
  }
  return out;
}

Report AssembleReport(const std::vector<const trace::EventStore*>& stores,
                      std::vector<RankResult> results, const AnalyzeOptions& options) {
  Report r;
  r.tool_version = FASTENOUGH_VERSION;

  // Inputs, meta and counters come straight from the stores.
  trace::Counters merged;
  for (const trace::EventStore* s : stores) {
    r.inputs.push_back({s->path, trace::TraceFormatName(s->format), s->file_bytes, s->json_bytes,
                        s->event_count, {s->rank}, s->events_close_offset, s->annotations});
    merged.Merge(s->counters());
  }
  if (!stores.empty()) {
    const trace::EventStore& first = *stores.front();
    r.meta.device_properties = first.device_properties;
    r.meta.world_size = first.world_size;
    r.meta.backend = first.backend;
    r.meta.base_time_ns = first.base_time_ns;
  }
  for (size_t c = 0; c < trace::kCounterCount; ++c) {
    const auto counter = static_cast<trace::Counter>(c);
    if (merged.Get(counter) == 0) continue;
    const trace::CounterInfo& info = trace::GetCounterInfo(counter);
    CounterRow row{std::string(info.name), std::string(trace::SeverityName(info.severity)),
                   merged.Get(counter), std::string(info.description), {}};
    for (const trace::EventStore* s : stores) {
      if (s->counters().Get(counter) != 0) {
        row.per_input.emplace_back(s->path, s->counters().Get(counter));
      }
    }
    r.counters.push_back(std::move(row));
  }

  // Cross-rank detectors (straggler-rank) and the shape census (rank 0's
  // shapes stand for all: ranks run the same model) need the stores.
  {
    std::vector<const analysis::RankAnalysis*> analyses;
    for (const RankResult& res : results) analyses.push_back(&res.analysis);
    for (auto& f : findings::DetectAcrossRanks(stores, analyses)) r.findings.push_back(std::move(f));
    if (!stores.empty()) {
      for (const auto& row : analysis::ShapeCensus(*stores.front())) {
        r.shapes.push_back(analysis::ShapeRowJson(row));
      }
    }
  }
  for (RankResult& res : results) {
    r.ranks.push_back(std::move(res.analysis));
    for (auto& f : res.findings) r.findings.push_back(std::move(f));
  }
  findings::MarkClassOverlaps(r.findings);
  r.avoidable = findings::BoundAvoidable(r.findings);
  RankFindings(r.findings);

  // Cross-rank summaries.
  std::vector<int64_t> all_steps, steady_steps;
  int64_t busy_sum = 0;
  std::map<std::string, analysis::KernelRow> kernels;
  std::map<std::string, analysis::OpRow> ops;
  for (const auto& ra : r.ranks) {
    for (size_t i = 0; i < ra.steps.steps.size(); ++i) {
      all_steps.push_back(ra.steps.steps[i].window.dur_ns());
      if (i >= ra.steps.steady_begin) steady_steps.push_back(ra.steps.steps[i].window.dur_ns());
    }
    for (const auto& d : ra.devices) busy_sum += d.busy_ns;
    for (const auto& k : ra.kernels) {
      auto& m = kernels[k.name];
      m.name = k.name;
      m.count += k.count;
      m.total_ns += k.total_ns;
    }
    for (const auto& o : ra.ops) {
      auto& m = ops[o.name];
      m.name = o.name;
      m.count += o.count;
      m.total_ns += o.total_ns;
      m.self_ns += o.self_ns;
    }
  }
  r.steps.duration = analysis::Summarize(all_steps);
  r.steps.steady_duration = analysis::Summarize(steady_steps);
  for (auto& [name, k] : kernels) {
    k.mean_ns = static_cast<double>(k.total_ns) / static_cast<double>(k.count);
    k.share_of_busy =
        busy_sum > 0 ? static_cast<double>(k.total_ns) / static_cast<double>(busy_sum) : 0;
    r.top_kernels.push_back(std::move(k));
  }
  analysis::SortAndTrimKernels(r.top_kernels, options.top_n);
  for (auto& [name, o] : ops) r.top_ops.push_back(o);
  r.top_ops_self = r.top_ops;
  analysis::SortAndTrimOps(r.top_ops, options.top_n, /*by_self=*/false);
  analysis::SortAndTrimOps(r.top_ops_self, options.top_n, /*by_self=*/true);
  return r;
}

}  // namespace

Report BuildReport(const std::vector<const trace::EventStore*>& stores,
                   const AnalyzeOptions& options) {
  std::vector<RankResult> results;
  for (const trace::EventStore* s : stores) results.push_back(AnalyzeOne(*s, options));
  return AssembleReport(stores, std::move(results), options);
}

StatusOr<Report> AnalyzeTraces(const std::vector<std::string>& paths,
                               const AnalyzeOptions& options) {
  if (paths.empty()) return InvalidArgument("no trace files given");
  const size_t n = paths.size();
  std::vector<std::optional<StatusOr<trace::EventStore>>> results(n);
  std::optional<ProgressAggregator> progress;
  if (options.progress) progress.emplace(n, options.progress);

  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, n);
  std::vector<RankResult> analyses(n);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) {
      trace::LoadOptions lo;
      if (progress) {
        lo.progress = [&progress, i](uint64_t done, uint64_t total) {
          progress->Update(i, done, total);
        };
      }
      results[i].emplace(trace::LoadTrace(paths[i], lo));
      // Analyse in the same thread while the store is hot in cache; ranks
      // analyse in parallel like they load.
      if (results[i]->ok()) {
        trace::EventStore& store = results[i]->value();
        if (store.path.empty()) store.path = paths[i];
        analyses[i] = AnalyzeOne(store, options);
      }
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }

  std::vector<const trace::EventStore*> stores;
  for (size_t i = 0; i < n; ++i) {
    StatusOr<trace::EventStore>& res = *results[i];
    if (!res.ok()) {
      const Status& st = res.status();
      // The reader may already name the file; make sure the message starts with it.
      if (st.message().rfind(paths[i], 0) == 0) return st;
      return Status(st.code(), paths[i] + ": " + st.message());
    }
    stores.push_back(&res.value());
  }
  return AssembleReport(stores, std::move(analyses), options);
}

StatusOr<std::string> AnalyzeTracesToJson(const std::vector<std::string>& paths,
                                          const AnalyzeOptions& options) {
  StatusOr<Report> r = AnalyzeTraces(paths, options);
  if (!r.ok()) return r.status();
  return ReportToJson(r.value());
}

}  // namespace fastenough::report
