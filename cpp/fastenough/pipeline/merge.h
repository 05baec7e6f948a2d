// `fastenough merge`: the job's report from fastenough.rank-summary/1 files
// (rank_summary_json.h), the same report `fastenough analyze` gives for the
// traces they were taken from, in the same order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fastenough/report/rank_summary.h"
#include "fastenough/report/report.h"
#include "fastenough/util/status.h"

namespace fastenough::pipeline {

// Reads every summary (gzip or not) in order; a file that cannot be read or
// is not a summary fails the call with its path first in the message.
StatusOr<std::vector<report::RankSummary>> ReadRankSummaries(
    const std::vector<std::string>& paths);

// ReadRankSummaries + AssembleReport. Reads every summary (gzip or not) in order; a file that cannot be read or
// is not a summary fails the call with its path first in the message.
StatusOr<report::Report> MergeRankSummaries(const std::vector<std::string>& paths,
                                            size_t top_n = 20);

// MergeRankSummaries + ReportToJson.
StatusOr<std::string> MergeRankSummariesToJson(const std::vector<std::string>& paths,
                                               size_t top_n = 20);

}  // namespace fastenough::pipeline
