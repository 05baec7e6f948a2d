// The `fastenough analyze` pipeline: load every trace (in parallel, one store
// per rank), run every analysis, keep what the report needs of each rank (a
// RankSummary, rank_summary.h) and free its store before loading the next, and
// produce the fastenough.report/1 document from the summaries (assemble.h).
// Peak memory: about the largest store times the loader threads, plus the
// summaries. With fewer inputs than cores (one trace, the usual case) a rank's
// own analysis also uses a few threads: the work that reads only the store
// (the op table, graph replays, compiled regions, the detectors' call tree,
// the collectives, the shape census) runs beside the device analyses; each
// part fills its own result, so the report is the same byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fastenough/analysis/frame_kinds.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/report/report.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/util/status.h"

namespace fastenough::pipeline {

struct AnalyzeOptions {
  // Progress over all inputs: (bytes done, bytes total). Called from worker
  // threads (one at a time: the pipeline serialises the calls).
  std::function<void(uint64_t done, uint64_t total)> progress;
  int threads = 0;  // 0: one per input, at most the hardware concurrency
  analysis::RankOptions rank;
  size_t top_n = 20;  // rows of top_kernels / top_ops
  // The traced program's sys.path by kind, to tell its own frames from the
  // libraries' and fastenough's (analysis/frame_kinds.h); empty: by path alone.
  analysis::FrameRoots frame_roots;
  // --device / --peaks: the peaks each rank's roofline is held to.
  roofline::PeakSettings peaks;
};

// Loads, analyses and builds the Report (findings included, ranked). A file
// that fails to load fails the call; the message starts with its path.
StatusOr<report::Report> AnalyzeTraces(const std::vector<std::string>& paths,
                                       const AnalyzeOptions& options = {});

// AnalyzeTraces + ReportToJson.
StatusOr<std::string> AnalyzeTracesToJson(const std::vector<std::string>& paths,
                                          const AnalyzeOptions& options = {});

// AnalyzeTracesToJson, and each rank's summary as fastenough.rank-summary/1
// JSON (rank_summary_json.h), in input order: what `analyze --rank-summaries`
// writes.
struct AnalyzedJob {
  struct Summary {
    int rank = 0;
    std::string json;
  };
  std::string report_json;
  std::vector<Summary> summaries;
};
StatusOr<AnalyzedJob> AnalyzeTracesWithSummaries(const std::vector<std::string>& paths,
                                                 const AnalyzeOptions& options = {});

// One trace's fastenough.rank-summary/1 JSON (its shape census taken): what a
// rank of a `fastenough run --analyze-in-job` job sends to rank 0 at exit, the
// summary `analyze --rank-summaries` writes for that trace alone. input_index
// is the trace's place among the job's inputs (`analyze --dask` summarises
// each on a worker; merge orders by it).
StatusOr<AnalyzedJob::Summary> SummarizeTraceToJson(const std::string& path,
                                                    const AnalyzeOptions& options = {},
                                                    size_t input_index = 0);

// The part of AnalyzeTraces after loading, for callers that hold stores
// (tests, `fastenough run`). Stores must be Finalize()d.
report::Report BuildReport(const std::vector<const trace::EventStore*>& stores,
                           const AnalyzeOptions& options = {});

}  // namespace fastenough::pipeline
