// What one rank contributes to a job's report, taken from its EventStore so
// that the store can be freed before the next rank loads: peak memory is then
// about one store per loader thread plus these summaries, not every rank's
// events at once (docs/rank-summary.md).
//
// The summary holds the rank's RankAnalysis (what the report shows of it; the
// working sets the detectors needed, such as every stream gap and the
// critical path's segments, are dropped), its findings, its collectives for
// the cross-rank detectors (findings/straggler_rank.cc), its shape census when
// asked for, and the input, meta and counter facts of its trace.
// rank_summary_json.h writes and reads it as fastenough.rank-summary/1;
// assemble.h builds the job's report from summaries.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "fastenough/analysis/collectives.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/shapes.h"
#include "fastenough/findings/finding.h"
#include "fastenough/report/report.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/trace/counters.h"

namespace fastenough::report {

struct RankSummary {
  // Its place among the inputs of the analysis that took it (0-based): a
  // directory of summaries merges in this order, as analyze ordered them.
  size_t input_index = 0;
  InputInfo input;          // the trace file (with what --annotate needs of it)
  // Whether the trace named its rank (distributedInfo.rank); a summary read
  // back from a file says a rank, so it is known. Not written.
  bool rank_known = true;
  trace::Counters counters;  // its reader's counters
  Meta meta;                 // its device properties, world size, backend, base time (no extra)
  analysis::RankAnalysis analysis;
  std::vector<findings::Finding> findings;  // the rank's own (DetectAll), unranked
  analysis::RankCollectives collectives;
  std::vector<analysis::ShapeRow> shapes;  // its shape census; empty when not asked for
  roofline::RankRoofline roofline;  // its hot ops against the device's roofs
};

// Takes what the report needs of one analysed rank. `analysis` and `findings`
// are moved in and trimmed to what the report shows (see above);
// with_shapes: run the shape census (the report shows the first input's).
RankSummary SummarizeRank(const trace::EventStore& store, analysis::RankAnalysis analysis,
                          std::vector<findings::Finding> findings, bool with_shapes,
                          size_t input_index = 0);
// The same with what it reads from the store alone already taken (its
// collectives, analysis::CollectCollectives; its shape census,
// analysis::ShapeCensus, or nullopt when not asked for), e.g. on another
// thread while the analyses ran.
RankSummary SummarizeRank(const trace::EventStore& store, analysis::RankAnalysis analysis,
                          std::vector<findings::Finding> findings,
                          analysis::RankCollectives collectives,
                          std::optional<std::vector<analysis::ShapeRow>> shapes,
                          size_t input_index);

}  // namespace fastenough::report
