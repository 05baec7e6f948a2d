#include "fastenough/report/rank_summary.h"

#include <algorithm>
#include <utility>

#include "fastenough/report/depth_json.h"

namespace fastenough::report {

namespace {

// Frees what x holds. Not `x = {}`: for a vector that is the initializer-list
// assignment, which empties it but keeps its capacity (the memory).
template <typename T>
void Free(T& x) {
  x = T();
}

// The parts of a rank's analysis that the detectors read and the report does
// not show: the bulk of a RankAnalysis on a long trace (the critical path's
// segments were 0.6 of 0.75 MB for a 20 MB trace).
void DropWorkingSets(analysis::RankAnalysis& a) {
  Free(a.busy_all);
  for (auto& d : a.devices) {
    Free(d.busy);
    for (auto& s : d.streams) Free(s.gaps);  // gap_count stays
  }
  Free(a.device_turns.turns);  // the figures stay; the finding has claimed the time
  Free(a.critical_path.segments);
  Free(a.critical_path.on_path);
  // The report shows the heaviest kEfficiencyKernelRows of all ranks
  // together, ordered by total time (stable: rank order, then each rank's
  // order); they are among the heaviest kEfficiencyKernelRows of each rank.
  auto& kernels = a.efficiency.kernels;
  std::stable_sort(kernels.begin(), kernels.end(), [](const auto& x, const auto& y) {
    return x.total_ns > y.total_ns;
  });
  if (kernels.size() > kEfficiencyKernelRows) kernels.resize(kEfficiencyKernelRows);
}

}  // namespace

RankSummary SummarizeRank(const trace::EventStore& store, analysis::RankAnalysis analysis,
                          std::vector<findings::Finding> findings, bool with_shapes,
                          size_t input_index) {
  analysis::RankCollectives collectives = analysis::CollectCollectives(store);
  std::optional<std::vector<analysis::ShapeRow>> shapes;
  if (with_shapes) shapes = analysis::ShapeCensus(store);
  return SummarizeRank(store, std::move(analysis), std::move(findings), std::move(collectives),
                       std::move(shapes), input_index);
}

RankSummary SummarizeRank(const trace::EventStore& store, analysis::RankAnalysis analysis,
                          std::vector<findings::Finding> findings,
                          analysis::RankCollectives collectives,
                          std::optional<std::vector<analysis::ShapeRow>> shapes,
                          size_t input_index) {
  RankSummary s;
  s.input_index = input_index;
  s.input = {store.path,       trace::TraceFormatName(store.format),
             store.file_bytes, store.json_bytes,
             store.event_count, {store.rank},
             store.events_close_offset, store.annotations};
  s.rank_known = store.rank_known;
  s.counters = store.counters();
  s.meta.device_properties = store.device_properties;
  s.meta.world_size = store.world_size;
  s.meta.backend = store.backend;
  s.meta.base_time_ns = store.base_time_ns;
  s.collectives = std::move(collectives);
  if (shapes) s.shapes = std::move(*shapes);
  DropWorkingSets(analysis);
  // The time each finding claims served the overlap marking inside the rank
  // (findings/overlaps.h), which is done.
  for (auto& f : findings) Free(f.claimed);
  s.analysis = std::move(analysis);
  s.findings = std::move(findings);
  return s;
}

}  // namespace fastenough::report
